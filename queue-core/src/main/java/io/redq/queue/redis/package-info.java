/**
 * The Redis implementation of Redq's API, and how it keeps the queues in Redis.
 *
 * <p>
 * {@link RedisJobDispatcher} and {@link RedisJobQueueOperations} implement
 * {@code JobDispatcher} and {@code JobQueueOperations} of {@link io.redq.queue.core}; a
 * configuration creates them (Spring Boot's auto-configuration does), and applications
 * inject them by those interfaces. The other classes are internal: the keys, the records
 * the scripts take and return, and the script calls of producers
 * ({@link EnqueueOperations}) and listener containers ({@link ListenerOperations}, with
 * its {@link LeaseOperations}, {@link GateOperations} and {@link ProgressOperations}) on
 * a shared {@link QueueStore}. They change without notice between versions.
 */
@NullMarked
package io.redq.queue.redis;

import org.jspecify.annotations.NullMarked;
