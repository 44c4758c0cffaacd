/**
 * The web dashboard of Redq's queues: a small front end served from this jar and the JSON
 * it reads, an adapter over the {@link io.redq.queue.inspect.JobQueueInspector inspection
 * service}.
 */
@NullMarked
package io.redq.queue.dashboard;

import org.jspecify.annotations.NullMarked;
