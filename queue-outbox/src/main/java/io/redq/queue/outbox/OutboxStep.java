package io.redq.queue.outbox;

import java.util.List;

import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.EnqueueCommand;

/**
 * One Redis call that an outbox row holds, applied by the relay in the row's order.
 *
 * @author Redq team
 */
sealed interface OutboxStep {

	/**
	 * Return how many jobs the step enqueues.
	 * @return the jobs
	 */
	default int jobs() {
		return 0;
	}

	/**
	 * Jobs to enqueue in one script call.
	 *
	 * @param commands the jobs, at most 1,000
	 */
	record Enqueue(List<EnqueueCommand> commands) implements OutboxStep {

		@Override
		public int jobs() {
			return this.commands.size();
		}

	}

	/**
	 * A batch to create under the id chosen at its dispatch, with its members and
	 * callbacks, all of it in one step of the relay.
	 *
	 * @param batch the batch
	 */
	record Batch(BatchCommand batch) implements OutboxStep {

		@Override
		public int jobs() {
			return this.batch.members().size();
		}

	}

	/**
	 * A chain to create under the id chosen at its dispatch, with its steps and
	 * on-failure job, all of it in one step of the relay.
	 *
	 * @param chain the chain
	 */
	record Chain(ChainCommand chain) implements OutboxStep {

		@Override
		public int jobs() {
			return this.chain.steps().size();
		}

	}

	/**
	 * A cancel of a pending job or timer.
	 *
	 * @param id the job id
	 */
	record Cancel(String id) implements OutboxStep {

	}

	/**
	 * A move of a pending job or timer to a new time.
	 *
	 * @param id the job id
	 * @param at the new time, epoch milliseconds
	 */
	record Reschedule(String id, long at) implements OutboxStep {

	}

}
