package io.redq.queue.core;

/**
 * A batch as Redis keeps it. The counts of finished members keep growing after a batch
 * failed fast, as its remaining members finish.
 *
 * @param id the batch id
 * @param state where the batch is
 * @param deathPolicy what the batch does when a member dies
 * @param total how many members it has
 * @param pending how many members have not finished
 * @param succeeded how many members succeeded
 * @param dead how many members died (see {@link JobDispatcher#deadBatchMembers})
 * @param cancelled how many members were cancelled before they ran
 * @author Redq team
 * @since 0.1.0
 */
public record BatchStatus(String id, State state, BatchDeathPolicy deathPolicy, long total, long pending,
		long succeeded, long dead, long cancelled) {

	/**
	 * Where a batch is.
	 */
	public enum State {

		/** Its members are being enqueued. */
		CREATING,

		/** Members have not finished yet. */
		RUNNING,

		/**
		 * Every member succeeded: both callbacks are due, enqueued by the migrator pass
		 * that found the batch ended.
		 */
		SUCCEEDED,

		/**
		 * A member died (the first one, under {@link BatchDeathPolicy#FAIL_FAST}): the
		 * on-complete callback is due.
		 */
		FAILED,

		/**
		 * It was cancelled, or members of it were: the on-complete callback is due.
		 */
		CANCELLED;

		/**
		 * Whether the batch has ended: its callbacks were decided.
		 * @return whether it has ended
		 */
		public boolean isEnded() {
			return this != CREATING && this != RUNNING;
		}

	}

}
