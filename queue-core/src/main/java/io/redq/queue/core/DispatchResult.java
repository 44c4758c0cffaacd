package io.redq.queue.core;

/**
 * What a dispatch did: the job id and the {@link Outcome}, told by Redis in the reply of
 * the dispatch itself, or {@link Outcome#DEFERRED} for a dispatch held until its
 * transaction commits.
 *
 * <pre class="code">
 * DispatchResult result = dispatcher.schedule("close-auction", auctionId, endsAt);
 * if (result.outcome() == DispatchResult.Outcome.DROPPED) {
 *     // the timer is running now: this one was not set
 * }
 * </pre>
 *
 * @param id the job id (the caller-chosen one, or a generated one)
 * @param outcome what happened to the job
 * @author Redq team
 * @since 0.1.0
 */
public record DispatchResult(String id, Outcome outcome) {

	/**
	 * What a dispatch did with its job, given the job with the same id already in the
	 * queue, if any (see {@link DuplicatePolicy} and {@link Uniqueness}).
	 */
	public enum Outcome {

		/** No job with that id was pending or running: the job was created. */
		CREATED,

		/**
		 * A job with that id was pending, or a dispatch was already queued behind the
		 * running one, and was kept ({@link DuplicatePolicy#KEEP}): this one was not
		 * stored.
		 */
		KEPT,

		/**
		 * A pending job with that id was replaced ({@link DuplicatePolicy#REPLACE},
		 * {@link DuplicatePolicy#REPLACE_PAYLOAD}).
		 */
		REPLACED,

		/**
		 * The job with that id is running: this one was queued to run after it
		 * ({@link Uniqueness#UNTIL_STARTED}).
		 */
		QUEUED,

		/**
		 * The job with that id is running: this one was dropped
		 * ({@link Uniqueness#UNTIL_COMPLETED}), e.g. a timer scheduled while it fires.
		 */
		DROPPED,

		/**
		 * The dispatch was made inside a transaction and is held until it commits (see
		 * {@code TransactionAwareJobDispatcher}): the id is final, the outcome not yet
		 * known. {@link JobDispatcher#dispatchAsync(JobRequest)} tells it after the
		 * commit.
		 * @since 0.1.0
		 */
		DEFERRED

	}

}
