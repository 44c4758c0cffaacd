package io.redq.queue.redis;

import io.redq.queue.core.JobLimits;
import io.redq.queue.core.RateLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The gates one job passes before it runs: see {@link JobLimits}.
 *
 * @param exclusiveKey the job's exclusive key, or {@code null}
 * @param job the job name
 * @param jobMaxRunning at most this many jobs of this kind run at once; 0 for no limit
 * @param queueMaxRunning at most this many jobs of the queue run at once; 0 for no limit
 * @param rateLimit the job's rate limit, or {@code null}
 * @param group the job's group, or {@code null} for none
 * @param groupMaxRunning at most this many jobs of the job's group run at once; 0 for no
 * limit
 * @author Redq team
 * @since 0.1.0
 */
public record Gates(@Nullable String exclusiveKey, String job, int jobMaxRunning, int queueMaxRunning,
		@Nullable RateLimit rateLimit, @Nullable String group, int groupMaxRunning) {

	public Gates {
		Assert.isTrue(group != null || groupMaxRunning == 0, "A group running limit needs a group");
	}

	/**
	 * Create the gates of a job in no group.
	 * @param exclusiveKey the job's exclusive key, or {@code null}
	 * @param job the job name
	 * @param jobMaxRunning at most this many jobs of this kind run at once; 0 for no
	 * limit
	 * @param queueMaxRunning at most this many jobs of the queue run at once; 0 for no
	 * limit
	 * @param rateLimit the job's rate limit, or {@code null}
	 */
	public Gates(@Nullable String exclusiveKey, String job, int jobMaxRunning, int queueMaxRunning,
			@Nullable RateLimit rateLimit) {
		this(exclusiveKey, job, jobMaxRunning, queueMaxRunning, rateLimit, null, 0);
	}

}
