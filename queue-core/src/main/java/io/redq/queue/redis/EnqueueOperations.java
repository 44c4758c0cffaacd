package io.redq.queue.redis;

import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;

/**
 * The producers' call: enqueue jobs, each batch in one script call.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class EnqueueOperations {

	private final QueueStore store;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public EnqueueOperations(QueueStore store) {
		this.store = store;
	}

	/**
	 * Enqueue jobs, each {@value QueueStore#MAX_BATCH_SIZE} in one atomic step, in order.
	 * @param queue the queue
	 * @param commands the jobs
	 * @return what happened to each job, in order
	 */
	public List<EnqueueResult> enqueue(String queue, List<EnqueueCommand> commands) {
		List<EnqueueResult> results = new ArrayList<>(commands.size());
		for (int from = 0; from < commands.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<EnqueueCommand> batch = commands.subList(from,
					Math.min(commands.size(), from + QueueStore.MAX_BATCH_SIZE));
			for (Object status : this.store.runForListOnReplicas(this.store.getScripts().enqueue(), queue, args(batch),
					batch.size() + " job(s)")) {
				results.add(EnqueueResult.values()[((Number) status).intValue()]);
			}
		}
		return results;
	}

	private static List<String> args(List<EnqueueCommand> commands) {
		List<String> args = new ArrayList<>(1 + commands.size() * 5);
		args.add(Integer.toString(commands.size()));
		for (EnqueueCommand command : commands) {
			args.add(command.id());
			args.add(command.due().absolute() ? "a" : "d");
			args.add(Long.toString(command.due().millis()));
			args.add(command.generatedId() ? "n" : policy(command.policy(), command.uniqueness()));
			args.add(command.body());
		}
		return args;
	}

	private static String policy(DuplicatePolicy policy, Uniqueness uniqueness) {
		String pending = switch (policy) {
			case KEEP -> "k";
			case REPLACE -> "r";
			case REPLACE_PAYLOAD -> "p";
		};
		return (uniqueness == Uniqueness.UNTIL_STARTED) ? pending + "q" : pending;
	}

}
