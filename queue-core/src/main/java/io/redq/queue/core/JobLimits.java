package io.redq.queue.core;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Limits on how a job runs across all application instances. A job that cannot start
 * because of them waits (it is deferred, its attempt given back), it does not fail.
 *
 * @param exclusiveKey a SpEL expression evaluated on the payload that gives the job's
 * key: at most one job with the same key runs at a time; {@code null} for none
 * @param maxRunning at most this many jobs of this kind run at once; 0 for no limit
 * @param rateLimit at most this many jobs of this kind start per window; {@code null} for
 * no limit
 * @author Redq team
 * @since 0.1.0
 */
public record JobLimits(@Nullable String exclusiveKey, int maxRunning, @Nullable RateLimit rateLimit) {

	/** No limits. */
	public static final JobLimits NONE = new JobLimits(null, 0, null);

	/**
	 * Create an instance, checking the values.
	 */
	public JobLimits {
		Assert.isTrue(maxRunning >= 0, "maxRunning must not be negative");
	}

	/**
	 * Return whether any limit applies.
	 * @return whether the job is limited
	 */
	public boolean isLimited() {
		return this.exclusiveKey != null || this.maxRunning > 0 || this.rateLimit != null;
	}

}
