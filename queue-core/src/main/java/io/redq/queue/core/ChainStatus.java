package io.redq.queue.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A chain as Redis keeps it.
 *
 * @param id the chain id
 * @param state where the chain is
 * @param reason why the chain ended without succeeding (which step died, or that it was
 * cancelled), or {@code null}
 * @param steps its steps, in the order they run
 * @author Redq team
 * @since 0.1.0
 */
public record ChainStatus(String id, State state, @Nullable String reason, List<Step> steps) {

	/**
	 * Where a chain is.
	 */
	public enum State {

		/** Its first step is being enqueued. */
		CREATING,

		/** A step has not finished yet. */
		RUNNING,

		/** Every step succeeded. */
		SUCCEEDED,

		/** A step died: the later steps never start, the on-failure job is due. */
		FAILED,

		/** It was cancelled, or its current step was. */
		CANCELLED;

		/**
		 * Whether the chain has ended.
		 * @return whether it has ended
		 */
		public boolean isEnded() {
			return this != CREATING && this != RUNNING;
		}

	}

	/**
	 * A step of a chain.
	 *
	 * @param queue the step's queue, or {@code null} for a step that is a batch
	 * @param id the step's job id, or the id of the batch it is (read it with
	 * {@link JobDispatcher#findBatch(String)})
	 * @param state where the step is: a batch step that failed is {@code DEAD}
	 */
	public record Step(@Nullable String queue, String id, StepState state) {

	}

	/**
	 * Where a step of a chain is.
	 */
	public enum StepState {

		/** The step before it has not succeeded yet: it is not enqueued. */
		PENDING,

		/** It is enqueued in its queue: waiting, delayed for a retry, or running. */
		RUNNING,

		/** It succeeded. */
		SUCCEEDED,

		/** It died: the chain failed. */
		DEAD,

		/**
		 * It never ran or never finished in the chain: the chain ended before it (see
		 * {@link ChainStatus#reason()}), or it was cancelled.
		 */
		CANCELLED

	}

}
