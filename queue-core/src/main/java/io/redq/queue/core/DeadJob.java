package io.redq.queue.core;

import java.time.Instant;

/**
 * A dead job, as kept for inspection.
 *
 * @param id the job id
 * @param diedAt when it died (Redis clock)
 * @param envelope the envelope JSON as stored
 * @param error the last error
 * @param attempts how many attempts it made
 * @author Redq team
 * @since 0.1.0
 */
public record DeadJob(String id, Instant diedAt, String envelope, String error, int attempts) {
}
