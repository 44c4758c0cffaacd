package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The cancellation of batches in Redis: of a running batch, of one that a live mover is
 * still creating (its members' enqueues forestalled, those never enqueued counted
 * cancelled), and of a batch step before its creation; and the settling of adds whose
 * enqueue a member that finished did not confirm.
 *
 * @author Redq team
 * @since 0.1.0
 * @see BatchOperations#getCancelOperations()
 */
public final class BatchCancelOperations {

	/** The outcomes of a member's hand-over (see {@code batch_member_done}). */
	private static final List<String> OUTCOMES = List.of("s", "d", "c", "p");

	private final QueueStore store;

	private final BatchOperations batches;

	private final EnqueueOperations enqueueOperations;

	BatchCancelOperations(QueueStore store, BatchOperations batches, EnqueueOperations enqueueOperations) {
		this.store = store;
		this.batches = batches;
		this.enqueueOperations = enqueueOperations;
	}

	/**
	 * Cancel a running batch: mark it cancelled, then cancel its pending members in their
	 * queues, {@value QueueStore#MAX_BATCH_SIZE} read per page. Their cancellations are
	 * handed over like completions; running members finish.
	 * @param batchId the batch id
	 * @param timeout the longest wait for each call or step, or {@code null} for the
	 * Redis command timeout
	 * @return whether a running batch was cancelled
	 */
	public boolean cancel(String batchId, @Nullable Duration timeout) {
		return cancel(batchId, timeout, null);
	}

	/**
	 * Cancel a batch as {@link #cancel(String, Duration)} does, or one that a live mover
	 * may still be creating under the given call id
	 * ({@link BatchCreationOperations#createOnce}): the enqueues of its members are then
	 * forestalled first, and those never enqueued are counted cancelled, so that the
	 * mover's seal opens the batch as being cancelled, and it ends {@code CANCELLED} once
	 * the members enqueued before the cancel are cancelled too. Its nested workflows that
	 * the mover has not created yet are made cancelled first, so that their creation is
	 * refused, and counted cancelled; those it created are cancelled as ones it may still
	 * be creating, and hand their ends over as they end.
	 * @param batchId the batch id
	 * @param timeout the longest wait for each call or step, or {@code null} for the
	 * Redis command timeout
	 * @param creationCallId the id of the call that creates the batch, or {@code null} to
	 * cancel only a batch that runs
	 * @return whether the batch was cancelled
	 */
	boolean cancel(String batchId, @Nullable Duration timeout, @Nullable String creationCallId) {
		List<String> args = (creationCallId != null) ? List.of("cancel", "creating") : List.of("cancel");
		// the batch's own keys may live on a master that does not answer
		if (!this.batches.run(batchId, args, timeout, "cancel batch '" + batchId + "'").equals(List.of(1L))) {
			return false;
		}
		BatchKeys keys = this.store.batchKeys(batchId);
		// each step's calls, to the batch's own keys or to every shard of its members'
		// queues, end within the timeout
		List<Object> found = AsyncCalls.within(() -> {
			forestallAdds(keys.meta());
			return this.store.getTemplate().opsForHash().multiGet(keys.meta(), List.of("queues", "total", "linger"));
		}, timeout, "read cancelled batch '" + batchId + "'");
		Object queues = found.get(0);
		if (queues == null) {
			return true;
		}
		List<String> memberQueues = Arrays.stream(((String) queues).split("\n"))
			.filter((queue) -> !isNested(queue))
			.toList();
		List<String> toCount = new ArrayList<>();
		if (creationCallId != null) {
			AsyncCalls.within(() -> {
				forestallCreation(creationCallId, memberQueues, BatchOperations.number(found.get(1)));
				return true;
			}, timeout, "forestall the enqueues of the members of cancelled batch '" + batchId + "'");
		}
		for (String id : AsyncCalls.within(() -> pending(keys), timeout,
				"read the pending members of cancelled batch '" + batchId + "'")) {
			boolean nested = false;
			for (String queue : ((String) queues).split("\n")) {
				if (creationCallId != null && isNested(queue)) {
					// the mover may still create it, as a call of its own (see
					// BatchCreationOperations#enqueueMembers)
					nested |= cancelCreating(queue, id, Duration.ofMillis(BatchOperations.number(found.get(2))),
							timeout, creationCallId + "/" + id);
					continue;
				}
				switch (queue) {
					case BatchOperations.BATCH_QUEUE -> cancel(id, timeout);
					case BatchOperations.CHAIN_QUEUE -> this.batches.chains().cancel(id, timeout);
					default -> cancelJob(queue, this.store.shardChoice().shardHolding(queue, id, timeout), id, timeout,
							"member '" + id + "' of batch " + batchId);
				}
			}
			// a nested workflow that exists hands its end over as it ends
			if (creationCallId != null && !nested) {
				toCount.add(id);
			}
		}
		for (int from = 0; from < toCount.size(); from += QueueStore.MAX_BATCH_SIZE) {
			countNeverEnqueued(batchId, memberQueues,
					toCount.subList(from, Math.min(toCount.size(), from + QueueStore.MAX_BATCH_SIZE)), timeout);
		}
		return true;
	}

	/**
	 * Return the ids of a batch's pending members, {@value QueueStore#MAX_BATCH_SIZE}
	 * read per page.
	 */
	private List<String> pending(BatchKeys keys) {
		List<String> ids = new ArrayList<>();
		ScanOptions page = ScanOptions.scanOptions().count(QueueStore.MAX_BATCH_SIZE).build();
		try (Cursor<String> pending = this.store.getTemplate().opsForSet().scan(keys.pending(), page)) {
			pending.forEachRemaining(ids::add);
		}
		return ids;
	}

	private static boolean isNested(String queue) {
		return BatchOperations.BATCH_QUEUE.equals(queue) || BatchOperations.CHAIN_QUEUE.equals(queue);
	}

	/**
	 * Cancel a batch or chain nested in a batch that a live mover may still be creating:
	 * one that does not exist yet is made ended and cancelled first, so that the mover's
	 * creation of it is refused; one that exists is cancelled as one the mover may still
	 * be creating under the given call id.
	 * @param kind {@link BatchOperations#BATCH_QUEUE} or
	 * {@link BatchOperations#CHAIN_QUEUE}
	 * @return whether a workflow of that kind exists under the id, whose end reaches the
	 * batch as it ends
	 */
	private boolean cancelCreating(String kind, String id, Duration window, @Nullable Duration timeout, String callId) {
		if (BatchOperations.CHAIN_QUEUE.equals(kind)) {
			return this.batches.chains().cancelCreating(id, window, timeout, callId);
		}
		if (forestall(id, window)) {
			return false;
		}
		cancel(id, timeout, callId);
		return true;
	}

	/**
	 * Forestall the enqueues of the members of a batch that a live mover may still be
	 * creating under the given call id: every step
	 * {@link BatchCreationOperations#createOnce} may make, in each of the members'
	 * queues, since the batch does not keep how many members each queue has (a queue's
	 * members take one step per {@value QueueStore#MAX_BATCH_SIZE}).
	 */
	private void forestallCreation(String callId, List<String> queues, long total) {
		long steps = queues.size() + total / QueueStore.MAX_BATCH_SIZE;
		for (long step = 0; step < steps; step++) {
			for (String queue : queues) {
				forestall(queue, callId + "." + step);
			}
		}
	}

	/**
	 * Forestall the enqueues of a cancelled batch's adds that are not confirmed (see
	 * {@link BatchCreationOperations#add}), lest a member that added before the cancel
	 * enqueue the added members after the cancel looked for them in their queues; they
	 * are counted cancelled once the adding member finished ({@link #settle}). The batch
	 * takes no add once it is cancelled.
	 */
	private void forestallAdds(String meta) {
		ScanOptions adds = ScanOptions.scanOptions()
			.match(BatchOperations.ADD + "*")
			.count(QueueStore.MAX_BATCH_SIZE)
			.build();
		try (Cursor<Map.Entry<Object, Object>> found = this.store.getTemplate().opsForHash().scan(meta, adds)) {
			while (found.hasNext()) {
				String[] add = found.next().getValue().toString().split("\n", 3);
				forestall(add[0], add[1]);
			}
		}
	}

	/**
	 * Make the call of an add's enqueue with no jobs, so that the enqueue, should it
	 * still come, changes nothing: once in each shard of the queue, since the enqueue
	 * makes one call of its id per shard it sends to.
	 */
	private void forestall(String queue, String callId) {
		for (String shard : this.store.queueShards().shardsToOperate(queue)) {
			this.enqueueOperations.forestall(shard, callId, this.store.getResendProtection().getWindow());
		}
	}

	/**
	 * Make a batch that does not exist yet ended and cancelled, so that its creation is
	 * refused: a batch step of a chain cancelled after a mover read the step, or a batch
	 * nested in a batch cancelled while it was created, which that mover may still
	 * create. A batch created before is left as it is.
	 * @param batchId the batch id
	 * @param window how long the batch is kept so, at least as long as the mover's call
	 * may come
	 * @return whether the batch is so, made by this call or one before; {@code false}
	 * when a batch was created under its id
	 */
	boolean forestall(String batchId, Duration window) {
		return this.batches.run(batchId, List.of("forestall", QueueStore.millis(window))).equals(List.of(1L));
	}

	/**
	 * Cancel a job of a workflow in the given shard of its queue, the one that holds it
	 * (see {@link QueueStore#shardHolding}).
	 * @param queue the job's queue
	 * @param shard the shard that holds the job
	 * @param id the job id
	 * @param timeout the longest wait for the call, or {@code null} for the Redis command
	 * timeout
	 * @param what what the job is, for a failure's message
	 */
	void cancelJob(String queue, String shard, String id, @Nullable Duration timeout, String what) {
		this.store.runOnce(this.store.getScripts().cancel(), shard, List.of(this.store.keys(shard).progress(id)),
				List.of(id), timeout, "cancel " + what + " in queue '" + queue + "'");
	}

	/**
	 * Settle an add that its member finished without confirming ({@code add:<member>:<n>}
	 * as {@code batch.lua} returns it). Its enqueue is first made again as the same call
	 * with no jobs, so that the enqueue, should it still come, changes nothing; then its
	 * members that are neither linked in their queue nor handed over from there were
	 * never enqueued, or finished and were counted, and are counted cancelled. Settled
	 * again (a mover that died before it recorded this), it counts nothing twice.
	 */
	void settle(String batchId, String name, String add) {
		List<String> parts = List.of(add.split("\n"));
		String queue = parts.get(0);
		List<String> ids = parts.subList(2, parts.size());
		forestall(queue, parts.get(1));
		countNeverEnqueued(batchId, List.of(queue), ids, null);
		int number = name.lastIndexOf(':');
		this.batches.run(batchId,
				List.of("settled", name.substring(BatchOperations.ADD.length(), number), name.substring(number + 1)));
	}

	/**
	 * Count cancelled the members whose enqueues (or creations, for nested workflows)
	 * were forestalled: those that are neither linked in any shard of their queues nor
	 * handed over from there were never enqueued, or finished and were counted, which
	 * counting them again does not change.
	 */
	private void countNeverEnqueued(String batchId, List<String> queues, List<String> ids, @Nullable Duration timeout) {
		String what = "count the members of cancelled batch '" + batchId + "' never enqueued";
		boolean[] found = AsyncCalls.within(() -> found(batchId, queues, ids), timeout, what);
		// the queue of an apply names the lists of succeeded and dead members, which a
		// cancelled member does not join
		List<String> args = new ArrayList<>(List.of("apply", queues.isEmpty() ? "" : queues.get(0)));
		for (int i = 0; i < ids.size(); i++) {
			if (!found[i]) {
				args.add(ids.get(i));
				args.add("c");
			}
		}
		if (args.size() > 2) {
			this.batches.deliver(batchId, this.batches.run(batchId, args, timeout, what));
		}
	}

	/**
	 * Return which of the given members of a batch are linked in a shard of their queues
	 * or handed over from there.
	 */
	private boolean[] found(String batchId, List<String> queues, List<String> ids) {
		StringRedisTemplate redis = this.store.getTemplate();
		List<String> handOvers = new ArrayList<>(ids.size() * OUTCOMES.size());
		for (String id : ids) {
			for (String outcome : OUTCOMES) {
				handOvers.add(batchId + "\n" + id + "\n" + outcome);
			}
		}
		boolean[] found = new boolean[ids.size()];
		for (String shard : queues.stream()
			.flatMap((queue) -> this.store.queueShards().shardsToOperate(queue).stream())
			.toList()) {
			QueueKeys keys = this.store.keys(shard);
			// the links first: a member that finishes meanwhile is linked or handed over
			List<Object> links = redis.<String, Object>opsForHash().multiGet(keys.batchLinks(), List.copyOf(ids));
			List<Double> handedOver = redis.opsForZSet().score(keys.handover(), handOvers.toArray());
			for (int i = 0; i < ids.size(); i++) {
				found[i] |= links.get(i) != null;
				for (int j = 0; j < OUTCOMES.size(); j++) {
					found[i] |= handedOver != null && handedOver.get(i * OUTCOMES.size() + j) != null;
				}
			}
		}
		return found;
	}

}
