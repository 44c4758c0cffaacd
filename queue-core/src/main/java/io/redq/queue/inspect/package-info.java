/**
 * The one place that answers "what is in my queues": the list of an application's queues,
 * the application instances that consume them, and parsed views of their jobs, for the
 * actuator endpoint, the health indicator, the gauges and the dashboard.
 */
@NullMarked
package io.redq.queue.inspect;

import org.jspecify.annotations.NullMarked;
