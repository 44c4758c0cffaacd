package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;

import org.springframework.util.Assert;

/**
 * The producers' call: enqueue jobs, each batch in one script call.
 * <p>
 * Each script call is one call of the {@link ResendProtection}: Lettuce re-sends a
 * command whose reply was lost when it reconnects, and that same call then changes
 * nothing and gets the same reply, even when its jobs ran and completed meanwhile.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class EnqueueOperations {

	/** The outcomes by the codes {@code enqueue.lua} returns. */
	private static final Outcome[] OUTCOMES = { Outcome.KEPT, Outcome.CREATED, Outcome.REPLACED, Outcome.QUEUED,
			Outcome.DROPPED };

	private final QueueStore store;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public EnqueueOperations(QueueStore store) {
		this.store = store;
	}

	/**
	 * Enqueue jobs, each {@value QueueStore#MAX_BATCH_SIZE} in one atomic step that is a
	 * call of its own of the {@link ResendProtection}, in order.
	 * @param queue the queue
	 * @param commands the jobs
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands) {
		List<DispatchResult> results = new ArrayList<>(commands.size());
		ResendProtection resends = this.store.getResendProtection();
		for (int from = 0; from < commands.size(); from += QueueStore.MAX_BATCH_SIZE) {
			ResendProtection.Call call = resends.begin(this.store.keys(queue));
			try {
				results.addAll(enqueue(queue, call,
						commands.subList(from, Math.min(commands.size(), from + QueueStore.MAX_BATCH_SIZE))));
			}
			finally {
				resends.end(call);
			}
		}
		return results;
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step, as the
	 * given call: when Redis still remembers that call, nothing changes and its reply is
	 * returned again. {@link #enqueue(String, List)} calls this with a new call per step;
	 * a second run of one call is what Lettuce sends when it re-sends the first.
	 * @param queue the queue
	 * @param call the call (see {@link ResendProtection#begin(QueueKeys)})
	 * @param batch the jobs
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, ResendProtection.Call call, List<EnqueueCommand> batch) {
		Assert.isTrue(batch.size() <= QueueStore.MAX_BATCH_SIZE,
				() -> "At most " + QueueStore.MAX_BATCH_SIZE + " jobs per step; got " + batch.size());
		List<?> codes = this.store.runForListOnReplicas(this.store.getScripts().enqueue(),
				this.store.keysOf(queue, call), QueueStore.argsOf(call, args(batch)),
				batch.size() + " job(s) of queue '" + queue + "'");
		List<DispatchResult> results = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			results.add(new DispatchResult(batch.get(i).id(), OUTCOMES[((Number) codes.get(i)).intValue()]));
		}
		return results;
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step as a
	 * call made under the caller's own id (see {@link ResendProtection#once}): sent again
	 * within the window, it changes nothing and gets the same reply, even when its jobs
	 * completed meanwhile.
	 * @param queue the queue
	 * @param callId the call's id, unique and unguessable (see
	 * {@link ResendProtection#newId()})
	 * @param batch the jobs
	 * @param window how long Redis remembers the call
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueueOnce(String queue, String callId, List<EnqueueCommand> batch, Duration window) {
		return enqueue(queue, ResendProtection.once(this.store.keys(queue), callId, window), batch);
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
