/**
 * Micrometer meters of jobs and queues, used when micrometer-core is on the classpath:
 * outcomes and durations of dispatched and processed jobs, and gauges of each queue.
 */
@NullMarked
package io.redq.queue.metrics;

import org.jspecify.annotations.NullMarked;
