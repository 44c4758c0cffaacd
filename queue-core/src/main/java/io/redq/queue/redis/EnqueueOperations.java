package io.redq.queue.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;

import org.springframework.util.Assert;

/**
 * The producers' call: enqueue jobs, each batch in one script call.
 * <p>
 * Each script call is a dispatch with a random nonce of its own, which Redis remembers
 * with the call's reply for the re-send window: Lettuce re-sends a command whose reply
 * was lost when it reconnects, and that same call then changes nothing and gets the same
 * reply, even when its jobs ran and completed meanwhile.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class EnqueueOperations {

	/** The outcomes by the codes {@code enqueue.lua} returns. */
	private static final Outcome[] OUTCOMES = { Outcome.KEPT, Outcome.CREATED, Outcome.REPLACED, Outcome.QUEUED,
			Outcome.DROPPED };

	private static final SecureRandom RANDOM = new SecureRandom();

	private final QueueStore store;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public EnqueueOperations(QueueStore store) {
		this.store = store;
	}

	/**
	 * Enqueue jobs as {@link #enqueue(String, List, Duration)} does, remembering each
	 * step for {@link RedisJobDispatcher#DEFAULT_RESEND_WINDOW}.
	 * @param queue the queue
	 * @param commands the jobs
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands) {
		return enqueue(queue, commands, RedisJobDispatcher.DEFAULT_RESEND_WINDOW);
	}

	/**
	 * Enqueue jobs, each {@value QueueStore#MAX_BATCH_SIZE} in one atomic step under a
	 * new nonce, in order.
	 * @param queue the queue
	 * @param commands the jobs
	 * @param resendWindow how long Redis remembers each step, so that a re-sent one
	 * changes nothing: longer than the Redis command timeout, after which Lettuce no
	 * longer re-sends it
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands, Duration resendWindow) {
		List<DispatchResult> results = new ArrayList<>(commands.size());
		for (int from = 0; from < commands.size(); from += QueueStore.MAX_BATCH_SIZE) {
			results.addAll(enqueue(queue, nonce(),
					commands.subList(from, Math.min(commands.size(), from + QueueStore.MAX_BATCH_SIZE)), resendWindow));
		}
		return results;
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step, as the
	 * dispatch with the given nonce: when Redis still remembers that dispatch, nothing
	 * changes and its reply is returned again. {@link #enqueue(String, List, Duration)}
	 * calls this with a new nonce per step; a second call with the same arguments is what
	 * Lettuce sends when it re-sends the first.
	 * @param queue the queue
	 * @param nonce the identity of the dispatch, unique and unguessable (see
	 * {@link #nonce()})
	 * @param batch the jobs
	 * @param resendWindow how long Redis remembers the dispatch
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, String nonce, List<EnqueueCommand> batch, Duration resendWindow) {
		Assert.isTrue(batch.size() <= QueueStore.MAX_BATCH_SIZE,
				() -> "At most " + QueueStore.MAX_BATCH_SIZE + " jobs per step; got " + batch.size());
		QueueKeys keys = this.store.keys(queue);
		List<String> dispatchKeys = new ArrayList<>(keys.all());
		dispatchKeys.add(keys.sent(nonce));
		List<?> codes = this.store.runForListOnReplicas(this.store.getScripts().enqueue(), dispatchKeys,
				args(batch, resendWindow), batch.size() + " job(s) of queue '" + queue + "'");
		List<DispatchResult> results = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			results.add(new DispatchResult(batch.get(i).id(), OUTCOMES[((Number) codes.get(i)).intValue()]));
		}
		return results;
	}

	/**
	 * Return a new nonce: 128 random bits, 22 URL-safe characters.
	 * @return the nonce
	 */
	public static String nonce() {
		byte[] bytes = new byte[16];
		RANDOM.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	private static List<String> args(List<EnqueueCommand> commands, Duration resendWindow) {
		List<String> args = new ArrayList<>(2 + commands.size() * 5);
		args.add(Integer.toString(commands.size()));
		args.add(Long.toString(resendWindow.toMillis()));
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
