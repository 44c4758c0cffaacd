package io.redq.queue.core;

import java.time.Duration;
import java.time.Instant;

import org.springframework.util.Assert;

/**
 * When a job becomes ready: after a delay measured on the Redis clock, or at an absolute
 * time.
 *
 * @param absolute whether {@code millis} is an epoch time rather than a delay
 * @param millis the delay or the epoch time, in milliseconds
 * @author Redq team
 * @since 0.1.0
 */
public record Due(boolean absolute, long millis) {

	/** Ready at once. */
	public static final Due NOW = new Due(false, 0);

	private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

	/**
	 * Return the due time of an instant (millisecond resolution).
	 * @param instant the instant; one in the past means now
	 * @return the due time
	 * @throws IllegalArgumentException for an instant after the year 9999
	 */
	public static Due at(Instant instant) {
		Assert.isTrue(!instant.isAfter(LATEST),
				() -> "Job due time " + instant + " is after the year 9999; pass a real date");
		return new Due(true, instant.toEpochMilli());
	}

	/**
	 * Return the due time after a delay, measured on the Redis clock (millisecond
	 * resolution).
	 * @param delay the delay; a negative one means now
	 * @return the due time
	 * @throws IllegalArgumentException for a delay that ends after the year 9999
	 */
	public static Due after(Duration delay) {
		Assert.isTrue(delay.compareTo(Duration.between(Instant.now(), LATEST)) <= 0,
				() -> "Job delay " + delay + " ends after the year 9999; pass a real delay");
		return new Due(false, delay.toMillis());
	}

}
