package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchDeathPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The creation of batches in Redis: a batch created before any member is enqueued, its
 * members enqueued (its nested workflows created) and its seal, as a call its caller may
 * make again; and the members a running member adds.
 *
 * @author Redq team
 * @since 0.1.0
 * @see BatchOperations#getCreationOperations()
 */
public final class BatchCreationOperations {

	private final BatchOperations batches;

	private final EnqueueOperations enqueueOperations;

	/** The index of the batches, {@link Keyspace#batchIndex()}. */
	private final CreationIndex index;

	BatchCreationOperations(BatchOperations batches, EnqueueOperations enqueueOperations, CreationIndex index) {
		this.batches = batches;
		this.enqueueOperations = enqueueOperations;
		this.index = index;
	}

	/**
	 * Create a batch that is not open yet: its state, callbacks and pending members, at
	 * most {@value QueueStore#MAX_BATCH_SIZE} members per call. Every member is added
	 * before any is enqueued; {@link #seal(String)} opens the batch once they are. A
	 * batch never sealed expires after {@link BatchOperations#CREATION_WINDOW}.
	 * @param batchId the batch id
	 * @param deathPolicy what the batch does when a member dies
	 * @param linger how long the batch is kept once it ended
	 * @param queues the members' queues
	 * @param callbacks the callbacks by name ({@code success}, {@code complete})
	 * @param memberIds the members' ids
	 * @param parent the link of the workflow the batch is a member or step of, or
	 * {@code null}
	 */
	void create(String batchId, BatchDeathPolicy deathPolicy, Duration linger, Collection<String> queues,
			Map<String, PreparedJob> callbacks, List<String> memberIds, @Nullable String parent) {
		Assert.state(
				create(batchId, deathPolicy, linger, BatchOperations.CREATION_WINDOW, queues,
						PreparedBatch.command(callbacks.get(BatchOperations.SUCCESS)),
						PreparedBatch.command(callbacks.get(BatchOperations.COMPLETE)), memberIds, parent),
				() -> "Batch " + batchId + " was opened or cancelled while it was created");
	}

	/**
	 * Create a batch that is not open yet, as {@link #create} does.
	 * @return {@code false} when the batch was opened before
	 */
	private boolean create(String batchId, BatchDeathPolicy deathPolicy, Duration linger, Duration creationWindow,
			Collection<String> queues, @Nullable PreparedCommand onSuccess, @Nullable PreparedCommand onComplete,
			List<String> memberIds, @Nullable String parent) {
		List<String> head = List.of("create", QueueStore.millis(creationWindow),
				(deathPolicy == BatchDeathPolicy.FAIL_FAST) ? "f" : "c", QueueStore.millis(linger),
				Integer.toString(memberIds.size()), String.join("\n", queues), StoredJob.format(onSuccess),
				StoredJob.format(onComplete), (parent != null) ? parent : "");
		for (int from = 0; from < memberIds.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<String> args = new ArrayList<>(head);
			args.addAll(memberIds.subList(from, Math.min(memberIds.size(), from + QueueStore.MAX_BATCH_SIZE)));
			if (!this.batches.run(batchId, args).equals(List.of(1L))) {
				return false;
			}
		}
		this.index.add(batchId);
		return true;
	}

	/**
	 * Create a batch under the id chosen at its dispatch, enqueue its members and open
	 * it, as a call that its caller may make again: an outbox relay that died before it
	 * recorded the row applied. Made again, it changes nothing: the batch's creation adds
	 * the same members while it is not open, each step of members is a call Redis
	 * remembers under {@code <callId>.<step>} for the window, and a batch opened before
	 * is only asked for the callbacks it has not delivered yet. So that a call made again
	 * within the window finds the batch, it is kept at least the window once it ended,
	 * and a creation left half-done at least the window.
	 * @param batch the batch
	 * @param callId the call's id, unique and unguessable (see
	 * {@link ResendProtection#newId()})
	 * @param window how long Redis remembers the call
	 */
	public void createOnce(BatchCommand batch, String callId, Duration window) {
		createOnce(batch, callId, window, null);
	}

	/**
	 * Create a batch as {@link #createOnce(BatchCommand, String, Duration)} does, as a
	 * member or step of another workflow.
	 * @param batch the batch
	 * @param callId the call's id
	 * @param window how long Redis remembers the call
	 * @param parent the link of the workflow the batch is a member or step of, or
	 * {@code null}
	 */
	void createOnce(BatchCommand batch, String callId, Duration window, @Nullable String parent) {
		if (create(batch, window, parent)) {
			enqueueMembers(batch, callId, window);
		}
		seal(batch.id());
	}

	/**
	 * Create a batch that is not open yet, the first step of {@link #createOnce}: kept at
	 * least the window once it ended, and a creation left half-done at least the window.
	 * @return {@code false} when the batch was opened or cancelled before
	 */
	boolean create(BatchCommand batch, Duration window, @Nullable String parent) {
		return create(batch.id(), batch.deathPolicy(), BatchOperations.maximum(batch.linger(), window),
				BatchOperations.maximum(BatchOperations.CREATION_WINDOW, window), byQueue(batch).keySet(),
				batch.onSuccess(), batch.onComplete(),
				batch.members().stream().map((member) -> member.command().id()).toList(), parent);
	}

	/**
	 * Enqueue the members of a batch created by {@link #createOnce}, and create its
	 * nested workflows: per queue, one call of {@code <callId>.<step>} per
	 * {@value QueueStore#MAX_BATCH_SIZE} members, steps counted across the queues.
	 */
	void enqueueMembers(BatchCommand batch, String callId, Duration window) {
		int step = 0;
		for (Map.Entry<String, List<EnqueueCommand>> queue : byQueue(batch).entrySet()) {
			List<EnqueueCommand> members = queue.getValue();
			if (BatchOperations.BATCH_QUEUE.equals(queue.getKey())
					|| BatchOperations.CHAIN_QUEUE.equals(queue.getKey())) {
				// each nested workflow is created as a call of its own, under its id,
				// unique in the tree
				for (EnqueueCommand member : members) {
					createNestedOnce(new PreparedCommand(queue.getKey(), member), callId + "/" + member.id(), window,
							batch.id());
				}
				continue;
			}
			for (int from = 0; from < members.size(); from += QueueStore.MAX_BATCH_SIZE) {
				try {
					this.enqueueOperations.enqueueOnce(queue.getKey(), callId + "." + step++,
							members.subList(from, Math.min(members.size(), from + QueueStore.MAX_BATCH_SIZE)), window,
							batch.id());
				}
				catch (EnqueueOperations.Forestalled ex) {
					// the batch was cancelled while it was created (see cancel), which
					// counts these members cancelled: the seal then ends it
				}
			}
		}
	}

	private static Map<String, List<EnqueueCommand>> byQueue(BatchCommand batch) {
		Map<String, List<EnqueueCommand>> byQueue = new LinkedHashMap<>();
		for (PreparedCommand member : batch.members()) {
			byQueue.computeIfAbsent(member.queue(), (queue) -> new ArrayList<>()).add(member.command());
		}
		return byQueue;
	}

	/**
	 * Create a nested batch or chain, as {@link BatchCommand#nest()} or
	 * {@link ChainCommand#nest()} gave it, as a call its caller may make again, with the
	 * given link as its parent.
	 */
	void createNestedOnce(PreparedCommand nested, String callId, Duration window, String parent) {
		if (BatchOperations.BATCH_QUEUE.equals(nested.queue())) {
			createOnce(BatchCommand.unnest(nested), callId, window, parent);
		}
		else {
			this.batches.chains().createOnce(ChainCommand.unnest(nested), callId, window, parent);
		}
	}

	/**
	 * Add members of one queue to a running batch on behalf of one of its pending
	 * members, before they are enqueued, at most {@value QueueStore#MAX_BATCH_SIZE}: the
	 * batch then ends no earlier than the adding member's completion is handed over,
	 * which comes after the added members are pending. The add is kept until
	 * {@link #confirmed confirmed}; an add that its member finished without confirming
	 * (its worker died before the enqueue, or the enqueue failed) is settled when that
	 * member's completion is handed over: the members that were never enqueued are then
	 * counted cancelled, so that the batch does not wait for them.
	 * @param batchId the batch id
	 * @param memberId the adding member's id
	 * @param queue the added members' queue
	 * @param callId the id of the call that enqueues them (see
	 * {@link EnqueueOperations#enqueueOnce})
	 * @param memberIds the added members' ids
	 * @return the number of the add, for {@link #confirmed}
	 * @throws IllegalStateException when the batch is not running, or the adding member
	 * is not one of its pending members
	 */
	long add(String batchId, String memberId, String queue, String callId, List<String> memberIds) {
		Assert.isTrue(memberIds.size() <= QueueStore.MAX_BATCH_SIZE,
				() -> "At most " + QueueStore.MAX_BATCH_SIZE + " members per add; got " + memberIds.size());
		List<String> args = new ArrayList<>(List.of("add", memberId, queue, callId));
		args.addAll(memberIds);
		List<?> reply = this.batches.run(batchId, args);
		long code = ((Number) reply.get(0)).longValue();
		if (code == 0) {
			Object state = (reply.size() > 1) ? reply.get(1) : null;
			Object outcome = (reply.size() > 2) ? reply.get(2) : null;
			String why = (state == null)
					? "no batch is kept under that id (it never was, or it ended and its linger passed)"
					: (outcome != null) ? "it ended (" + outcome + ")" : "it is not open yet (" + state + ")";
			throw new IllegalStateException("Cannot add members to batch " + batchId + ": " + why
					+ ". Members are added only while the batch runs: dispatch the work as a job of its own, or "
					+ "as a new batch");
		}
		Assert.state(code == 1,
				() -> "Cannot add members to batch " + batchId + ": job '" + memberId
						+ "' is not one of its pending members. Members are added by a member of the batch while "
						+ "it runs (its own id and batch id), so that the batch cannot end before they are in it");
		return ((Number) reply.get(1)).longValue();
	}

	/**
	 * Record that the members of an add are enqueued.
	 * @param batchId the batch id
	 * @param memberId the adding member's id
	 * @param add the number of the add, as {@link #add} returned it
	 */
	void confirmed(String batchId, String memberId, long add) {
		this.batches.run(batchId, List.of("confirmed", memberId, Long.toString(add)));
	}

	/**
	 * Open a batch whose members are all enqueued, and deliver its callbacks when its
	 * members finished meanwhile.
	 * @param batchId the batch id
	 */
	void seal(String batchId) {
		this.batches.deliver(batchId, this.batches.run(batchId, List.of("seal")));
	}

}
