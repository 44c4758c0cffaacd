package io.redq.queue.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.util.Assert;

/**
 * How long a failed job waits before its next attempt:
 * {@code delay * multiplier^(attempt - 1)}, at most {@code maxDelay}, plus a random
 * amount up to {@code jitter}.
 *
 * @param delay the wait after the first failed attempt
 * @param multiplier the factor applied for each further attempt
 * @param maxDelay the longest wait, before jitter
 * @param jitter the most random time added, to spread out retries that failed together
 * @author Redq team
 * @since 0.1.0
 */
public record JobBackoff(Duration delay, double multiplier, Duration maxDelay, Duration jitter) {

	/** The default: 1s, doubling, at most 10 minutes, no jitter. */
	public static final JobBackoff DEFAULT = new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10),
			Duration.ZERO);

	/**
	 * Create an instance, checking the values.
	 */
	public JobBackoff {
		Assert.isTrue(!delay.isNegative(), "Backoff delay must not be negative");
		Assert.isTrue(multiplier >= 1.0, "Backoff multiplier must be at least 1.0");
		Assert.isTrue(!maxDelay.isNegative(), "Backoff max delay must not be negative");
		Assert.isTrue(!jitter.isNegative(), "Backoff jitter must not be negative");
	}

	/**
	 * Return the wait after the given failed attempt.
	 * @param attempt the attempt that failed, starting at 1
	 * @return the wait before the next attempt
	 */
	public Duration delayAfter(int attempt) {
		double millis = this.delay.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		long capped = (long) Math.min(millis, this.maxDelay.toMillis());
		long jitterMillis = this.jitter.toMillis();
		long random = (jitterMillis > 0) ? ThreadLocalRandom.current().nextLong(jitterMillis + 1) : 0;
		return Duration.ofMillis(capped + random);
	}

}
