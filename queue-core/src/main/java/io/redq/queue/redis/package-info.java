/**
 * Internal: how Redq keeps its queues in Redis. The keys, the records the scripts take
 * and return, and the script calls of producers ({@link EnqueueOperations}) and listener
 * containers ({@link ListenerOperations}) on a shared {@link QueueStore}.
 *
 * <p>
 * Applications do not import this package: they use the types of
 * {@link io.redq.queue.core}, {@code JobDispatcher} to produce jobs and
 * {@code JobQueueOperations} to operate the queues, and their configuration creates a
 * {@link io.redq.queue.core.RedisJobQueueOperations}, which creates these classes. They
 * change without notice between versions.
 */
@NullMarked
package io.redq.queue.redis;

import org.jspecify.annotations.NullMarked;
