package io.redq.queue.core;

import java.time.Instant;

import org.springframework.util.Assert;

/**
 * One job to enqueue, as the enqueue script takes it.
 *
 * @param id the job id
 * @param due when the job becomes ready
 * @param policy what to do when a job with this id is already pending
 * @param uniqueness what to do when the job with this id is running
 * @param body the envelope JSON without its opening brace (the script prepends the
 * Redis-clock times)
 * @author Redq team
 * @since 0.1.0
 */
public record EnqueueCommand(String id, Due due, DuplicatePolicy policy, Uniqueness uniqueness, String body) {

	/**
	 * Create a command whose id stays unique until the job completes.
	 * @param id the job id
	 * @param due when the job becomes ready
	 * @param policy what to do when a job with this id is already pending
	 * @param body the envelope JSON without its opening brace
	 */
	public EnqueueCommand(String id, Due due, DuplicatePolicy policy, String body) {
		this(id, due, policy, Uniqueness.UNTIL_COMPLETED, body);
	}

	/**
	 * When a job becomes ready: after a delay measured on the Redis clock, or at an
	 * absolute time.
	 *
	 * @param absolute whether {@code millis} is an epoch time rather than a delay
	 * @param millis the delay or the epoch time, in milliseconds
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

	}

}
