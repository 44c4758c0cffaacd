package io.redq.queue.core;

/**
 * One job to enqueue, as the enqueue script takes it.
 *
 * @param id the job id
 * @param due when the job becomes ready
 * @param policy what to do when a job with this id is already pending
 * @param body the envelope JSON without its opening brace (the script prepends the
 * Redis-clock times)
 * @author Redq team
 * @since 0.1.0
 */
public record EnqueueCommand(String id, Due due, DuplicatePolicy policy, String body) {

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

	}

}
