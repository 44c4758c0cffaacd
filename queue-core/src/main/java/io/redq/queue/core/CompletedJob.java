package io.redq.queue.core;

import java.time.Instant;

/**
 * A completed job whose id is kept for inspection (see
 * {@link io.redq.queue.redis.RedisJobQueueOperations#setCompletedMaxSize(int)}).
 *
 * @param id the job id
 * @param completedAt when it was acknowledged (Redis clock)
 * @author Redq team
 * @since 0.1.0
 */
public record CompletedJob(String id, Instant completedAt) {
}
