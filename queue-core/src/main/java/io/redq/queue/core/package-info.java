/**
 * The dispatching and operating API of Redq: {@link io.redq.queue.core.JobDispatcher} to
 * dispatch jobs, {@link io.redq.queue.core.JobQueueOperations} to operate the queues, and
 * the values they take and return. Its Redis implementation is in
 * {@code io.redq.queue.redis}.
 */
@NullMarked
package io.redq.queue.core;

import org.jspecify.annotations.NullMarked;
