package io.redq.queue.redis;

import io.redq.queue.core.JobLimits;
import io.redq.queue.core.RateLimit;
import org.jspecify.annotations.Nullable;

/**
 * The gates one job passes before it runs: see {@link JobLimits}.
 *
 * @param exclusiveKey the job's exclusive key, or {@code null}
 * @param job the job name
 * @param jobMaxRunning at most this many jobs of this kind run at once; 0 for no limit
 * @param queueMaxRunning at most this many jobs of the queue run at once; 0 for no limit
 * @param rateLimit the job's rate limit, or {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record Gates(@Nullable String exclusiveKey, String job, int jobMaxRunning, int queueMaxRunning,
		@Nullable RateLimit rateLimit) {
}
