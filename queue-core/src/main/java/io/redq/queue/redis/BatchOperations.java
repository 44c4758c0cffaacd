package io.redq.queue.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Batches in Redis: their creation, the hand-over of their members' completions from the
 * members' queues, the delivery of their callbacks, reads and cancellation.
 * <p>
 * A batch keeps its state under a hash tag of its own ({@link BatchKeys}, see
 * {@code batch.lua}), since its members live in queues of any slot. A member's completion
 * is recorded in its own queue's slot, in the same step as its acknowledgement or death
 * ({@code batch_member_done} in {@code common.lua}); the migrator of that queue then
 * applies it to the batch ({@link #handOver(String)}), a step that changes nothing when
 * applied again, and removes it. The step that finds the batch ended decides its
 * callbacks once; each is then enqueued in its queue under the id
 * {@code <batch id>:<callback>} as a call that Redis remembers for the batch's linger, so
 * that enqueueing it again (a mover that died before it recorded the delivery) changes
 * nothing, even after the callback ran.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class BatchOperations {

	/**
	 * How many hand-overs a migrator pass applies at most.
	 */
	public static final int HAND_OVER_BATCH_SIZE = 1000;

	/**
	 * How long a batch whose creation did not finish is kept: its keys then expire.
	 */
	public static final Duration CREATION_WINDOW = Duration.ofHours(1);

	/** The names of the callbacks, as {@code batch.lua} keeps them. */
	static final String SUCCESS = "success";

	static final String COMPLETE = "complete";

	/**
	 * The name under which {@code batch.lua} and {@code chain.lua} return the end of a
	 * nested workflow, to hand over to the workflow it is a member or step of.
	 */
	static final String PARENT = "parent";

	/**
	 * What stands for the queue of a member that is a batch or a chain, in a batch's
	 * queues and dead members and a chain's steps: no queue name has braces.
	 */
	static final String BATCH_QUEUE = "{batch}";

	static final String CHAIN_QUEUE = "{chain}";

	/**
	 * The prefix of the names of the adds to settle, as {@code batch.lua} returns them.
	 */
	private static final String ADD = "add:";

	/** The outcomes of a member's hand-over (see {@code batch_member_done}). */
	private static final List<String> OUTCOMES = List.of("s", "d", "c", "p");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = script();

	private final QueueStore store;

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	private final EnqueueOperations enqueueOperations;

	private final ChainOperations chainOperations;

	/** The index of the batches, {@link Keyspace#batchIndex()}. */
	private final CreationIndex index;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public BatchOperations(QueueStore store) {
		this(store, SCRIPT, null, null);
	}

	/**
	 * Create an instance whose chains are the given ones.
	 * @param store the queues
	 * @param chainOperations the chains
	 */
	BatchOperations(QueueStore store, ChainOperations chainOperations) {
		this(store, SCRIPT, null, chainOperations);
	}

	/**
	 * Create an instance that runs another version of {@code batch.lua}: for tests that
	 * check what its invariants catch.
	 * @param store the queues
	 * @param script the batch script
	 */
	@SuppressWarnings("rawtypes")
	public BatchOperations(QueueStore store, RedisScript<List> script) {
		this(store, script, null, null);
	}

	/**
	 * Create an instance that runs other versions of {@code batch.lua} and
	 * {@code chain.lua}, with chains of its own ({@link #chains()}): for tests that check
	 * what the scripts' invariants catch.
	 * @param store the queues
	 * @param script the batch script
	 * @param chainScript the chain script
	 */
	@SuppressWarnings("rawtypes")
	public BatchOperations(QueueStore store, RedisScript<List> script, RedisScript<List> chainScript) {
		this(store, script, chainScript, null);
	}

	/**
	 * Create an instance that hands chain links to the given chains, or to chains of its
	 * own that run the given version of {@code chain.lua} or the shipped one.
	 */
	@SuppressWarnings("rawtypes")
	private BatchOperations(QueueStore store, RedisScript<List> script, @Nullable RedisScript<List> chainScript,
			@Nullable ChainOperations chainOperations) {
		this.store = store;
		this.script = script;
		this.enqueueOperations = new EnqueueOperations(store);
		this.chainOperations = (chainOperations != null) ? chainOperations
				: new ChainOperations(store, chainScript, this);
		this.index = new CreationIndex(store.getTemplate(), store.getKeyspace().batchIndex(),
				(id) -> Boolean.TRUE.equals(store.getTemplate().hasKey(store.batchKeys(id).meta())));
	}

	/**
	 * Create a batch that is not open yet: its state, callbacks and pending members, at
	 * most {@value QueueStore#MAX_BATCH_SIZE} members per call. Every member is added
	 * before any is enqueued; {@link #seal(String)} opens the batch once they are. A
	 * batch never sealed expires after {@link #CREATION_WINDOW}.
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
		Assert.state(create(batchId, deathPolicy, linger, CREATION_WINDOW, queues,
				PreparedBatch.command(callbacks.get(SUCCESS)), PreparedBatch.command(callbacks.get(COMPLETE)),
				memberIds, parent), () -> "Batch " + batchId + " was opened or cancelled while it was created");
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
			if (!run(batchId, args).equals(List.of(1L))) {
				return false;
			}
		}
		this.index.add(batchId);
		return true;
	}

	/**
	 * Return a page of the index of the batches, newest first. A batch listed may have
	 * expired since: {@link #find(String)} finds none, and {@link #unlist} drops it.
	 * @param offset how many of the newest to skip
	 * @param count how many to return
	 * @return the ids of the batches, with their creation times, newest first
	 */
	public Map<String, Instant> listed(int offset, int count) {
		return this.index.listed(offset, count);
	}

	/**
	 * Return how many batches the index lists, those expired but not dropped yet
	 * included.
	 * @return the count
	 */
	public long listedCount() {
		return this.index.count();
	}

	/**
	 * Return when a batch was created, as the index of the batches lists it.
	 * @param batchId the batch id
	 * @return the creation time, or {@code null} when the index does not list it
	 */
	public @Nullable Instant createdAt(String batchId) {
		return this.index.createdAt(batchId);
	}

	/**
	 * Drop batches that expired from the index of the batches.
	 * @param batchIds the ids of the batches
	 */
	public void unlist(Collection<String> batchIds) {
		this.index.unlist(batchIds);
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
		return create(batch.id(), batch.deathPolicy(), maximum(batch.linger(), window),
				maximum(CREATION_WINDOW, window), byQueue(batch).keySet(), batch.onSuccess(), batch.onComplete(),
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
			if (BATCH_QUEUE.equals(queue.getKey()) || CHAIN_QUEUE.equals(queue.getKey())) {
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
		if (BATCH_QUEUE.equals(nested.queue())) {
			createOnce(BatchCommand.unnest(nested), callId, window, parent);
		}
		else {
			this.chainOperations.createOnce(ChainCommand.unnest(nested), callId, window, parent);
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
		List<?> reply = run(batchId, args);
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
		run(batchId, List.of("confirmed", memberId, Long.toString(add)));
	}

	/**
	 * Open a batch whose members are all enqueued, and deliver its callbacks when its
	 * members finished meanwhile.
	 * @param batchId the batch id
	 */
	void seal(String batchId) {
		deliver(batchId, run(batchId, List.of("seal")));
	}

	/**
	 * Apply the hand-overs of a queue's members that finished to their batches, at most
	 * {@value #HAND_OVER_BATCH_SIZE}, deliver the callbacks of the batches that ended,
	 * then remove the hand-overs applied. Several instances may do so at once: each step
	 * changes nothing when applied again. The hand-overs of chain steps, whose link names
	 * a chain, go to their chains ({@link ChainOperations}). The members and steps of a
	 * purged queue come as cancelled, once the migrator found their links (see
	 * {@code migrate.lua}).
	 * @param shard the queue, or one of its shards (see {@link QueueStore#shards})
	 * @return how many hand-overs were applied
	 */
	public int handOver(String shard) {
		String handover = this.store.keys(shard).handover();
		// the workflows know the queue, whichever shard its members ran on
		String queue = QueueStore.queueOf(shard);
		StringRedisTemplate redis = this.store.getTemplate();
		Set<String> read = redis.opsForZSet().range(handover, 0, HAND_OVER_BATCH_SIZE - 1);
		// but the member '', which keeps the cursor of the sweep after a purge (see
		// migrate.lua)
		List<String> entries = (read != null) ? read.stream().filter((entry) -> !entry.isEmpty()).toList() : List.of();
		if (entries.isEmpty()) {
			return 0;
		}
		Map<String, List<String>> byBatch = new LinkedHashMap<>();
		for (String entry : entries) {
			String[] parts = entry.split("\n", 3);
			List<String> args = byBatch.computeIfAbsent(parts[0],
					(batchId) -> new ArrayList<>(List.of("apply", queue)));
			args.add(parts[1]);
			args.add(parts[2]);
		}
		byBatch.forEach(this::apply);
		redis.opsForZSet().remove(handover, entries.toArray());
		return entries.size();
	}

	/**
	 * Apply finishes to the workflow a link names, and deliver what it then calls for: a
	 * batch's callbacks, a chain's next step.
	 * @param link a batch id, or a chain's link
	 * @param args {@code apply}, the members' queue, then per member its id and outcome
	 */
	void apply(String link, List<String> args) {
		if (ChainOperations.isLink(link)) {
			this.chainOperations.apply(link, args);
		}
		else {
			deliver(link, run(link, args));
		}
	}

	/**
	 * Return the chains whose batches these are.
	 * @return the chains
	 */
	public ChainOperations chains() {
		return this.chainOperations;
	}

	/**
	 * Return a batch's state and counts.
	 * @param batchId the batch id
	 * @return the batch, or empty when none is kept under that id
	 */
	public Optional<BatchStatus> find(String batchId) {
		BatchKeys keys = this.store.batchKeys(batchId);
		StringRedisTemplate redis = this.store.getTemplate();
		List<Object> meta = redis.opsForHash()
			.multiGet(keys.meta(), List.of("state", "outcome", "policy", "total", "succeeded", "dead", "cancelled"));
		if (meta.get(0) == null) {
			return Optional.empty();
		}
		Long pending = redis.opsForSet().size(keys.pending());
		return Optional.of(new BatchStatus(batchId, state((String) meta.get(0), (String) meta.get(1)),
				"f".equals(meta.get(2)) ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON, number(meta.get(3)),
				(pending != null) ? pending : 0, number(meta.get(4)), number(meta.get(5)), number(meta.get(6))));
	}

	/**
	 * Return a page of a batch's dead members, in the order their deaths were handed
	 * over.
	 * @param batchId the batch id
	 * @param offset how many to skip
	 * @param count how many to return, at most 1,000
	 * @return the members
	 */
	public List<BatchMember> deadMembers(String batchId, int offset, int count) {
		return members(this.store.batchKeys(batchId).dead(), offset, count);
	}

	/**
	 * Return a page of a list of a batch's members.
	 */
	private List<BatchMember> members(String list, int offset, int count) {
		Assert.isTrue(offset >= 0, () -> "offset must not be negative; got " + offset);
		Assert.isTrue(count >= 0 && count <= QueueStore.MAX_BATCH_SIZE,
				() -> "count must be between 0 and " + QueueStore.MAX_BATCH_SIZE + "; got " + count);
		if (count == 0) {
			return List.of();
		}
		List<String> entries = this.store.getTemplate().opsForList().range(list, offset, offset + count - 1L);
		if (entries == null) {
			return List.of();
		}
		return entries.stream().map((entry) -> entry.split("\n", 2)).map((parts) -> switch (parts[0]) {
			case BATCH_QUEUE -> new BatchMember(null, parts[1], BatchMember.Kind.BATCH);
			case CHAIN_QUEUE -> new BatchMember(null, parts[1], BatchMember.Kind.CHAIN);
			default -> new BatchMember(parts[0], parts[1]);
		}).toList();
	}

	/**
	 * Return a page of the results of a batch's members that succeeded, in the order
	 * their successes were handed over: one read of the batch, then one {@code MGET} per
	 * queue on the page, in that queue's slot.
	 * @param <T> the results' type
	 * @param batchId the batch id
	 * @param type the results' type, which their JSON is read as
	 * @param offset how many to skip
	 * @param count how many to return, at most 1,000
	 * @return the members and their results, each empty when the member returned nothing,
	 * is a nested batch or chain, or its result expired
	 * @throws IllegalArgumentException when a result cannot be read as {@code type}
	 */
	public <T> List<BatchMemberResult<T>> memberResults(String batchId, Class<T> type, int offset, int count) {
		Assert.notNull(type, "type must not be null");
		List<BatchMember> members = members(this.store.batchKeys(batchId).succeeded(), offset, count);
		Map<String, List<BatchMember>> byQueue = new LinkedHashMap<>();
		for (BatchMember member : members) {
			// a nested batch or chain has no result of its own
			if (member.queue() != null) {
				byQueue.computeIfAbsent(member.queue(), (queue) -> new ArrayList<>()).add(member);
			}
		}
		Map<BatchMember, String> found = new HashMap<>();
		byQueue.forEach((queue, inQueue) -> {
			// a member ran on any shard: each shard is read for those not found yet
			for (String shard : this.store.shards(queue)) {
				List<BatchMember> missing = inQueue.stream().filter((member) -> !found.containsKey(member)).toList();
				if (missing.isEmpty()) {
					break;
				}
				QueueKeys keys = this.store.keys(shard);
				List<String> values = this.store.getTemplate()
					.opsForValue()
					.multiGet(missing.stream().map((member) -> keys.result(member.id())).toList());
				for (int i = 0; i < missing.size(); i++) {
					String value = (values != null) ? values.get(i) : null;
					if (value != null) {
						found.put(missing.get(i), value);
					}
				}
			}
		});
		return members.stream()
			.map((member) -> new BatchMemberResult<>(member,
					Optional.ofNullable(found.get(member))
						.map((json) -> JobResults.read(member.queue(), member.id(), json, type))))
			.toList();
	}

	/**
	 * Cancel a running batch: mark it cancelled, then cancel its pending members in their
	 * queues, {@value QueueStore#MAX_BATCH_SIZE} read per page. Their cancellations are
	 * handed over like completions; running members finish.
	 * @param batchId the batch id
	 * @param timeout the longest wait for each call, or {@code null} for the Redis
	 * command timeout
	 * @return whether a running batch was cancelled
	 */
	public boolean cancel(String batchId, @Nullable Duration timeout) {
		return cancel(batchId, timeout, null);
	}

	/**
	 * Cancel a batch as {@link #cancel(String, Duration)} does, or one that a live mover
	 * may still be creating under the given call id ({@link #createOnce}): the enqueues
	 * of its members are then forestalled first, and those never enqueued are counted
	 * cancelled, so that the mover's seal opens the batch as being cancelled, and it ends
	 * {@code CANCELLED} once the members enqueued before the cancel are cancelled too.
	 * @param batchId the batch id
	 * @param timeout the longest wait for each call, or {@code null} for the Redis
	 * command timeout
	 * @param creationCallId the id of the call that creates the batch, or {@code null} to
	 * cancel only a batch that runs
	 * @return whether the batch was cancelled
	 */
	boolean cancel(String batchId, @Nullable Duration timeout, @Nullable String creationCallId) {
		List<String> args = (creationCallId != null) ? List.of("cancel", "creating") : List.of("cancel");
		if (!run(batchId, args).equals(List.of(1L))) {
			return false;
		}
		BatchKeys keys = this.store.batchKeys(batchId);
		StringRedisTemplate redis = this.store.getTemplate();
		forestallAdds(keys.meta());
		List<Object> found = redis.opsForHash().multiGet(keys.meta(), List.of("queues", "total"));
		Object queues = found.get(0);
		if (queues == null) {
			return true;
		}
		List<String> memberQueues = Arrays.stream(((String) queues).split("\n"))
			.filter((queue) -> !BATCH_QUEUE.equals(queue) && !CHAIN_QUEUE.equals(queue))
			.toList();
		List<String> toCount = new ArrayList<>();
		if (creationCallId != null) {
			forestallCreation(creationCallId, memberQueues, number(found.get(1)));
		}
		ScanOptions page = ScanOptions.scanOptions().count(QueueStore.MAX_BATCH_SIZE).build();
		try (Cursor<String> pending = redis.opsForSet().scan(keys.pending(), page)) {
			while (pending.hasNext()) {
				String id = pending.next();
				if (creationCallId != null) {
					toCount.add(id);
				}
				for (String queue : ((String) queues).split("\n")) {
					switch (queue) {
						case BATCH_QUEUE -> cancel(id, timeout);
						case CHAIN_QUEUE -> this.chainOperations.cancel(id, timeout);
						default -> cancelJob(queue, this.store.shardHolding(queue, id), id, timeout,
								"member '" + id + "' of batch " + batchId);
					}
				}
			}
		}
		if (!memberQueues.isEmpty()) {
			for (int from = 0; from < toCount.size(); from += QueueStore.MAX_BATCH_SIZE) {
				countNeverEnqueued(batchId, memberQueues,
						toCount.subList(from, Math.min(toCount.size(), from + QueueStore.MAX_BATCH_SIZE)));
			}
		}
		return true;
	}

	/**
	 * Forestall the enqueues of the members of a batch that a live mover may still be
	 * creating under the given call id: every step {@link #createOnce} may make, in each
	 * of the members' queues, since the batch does not keep how many members each queue
	 * has (a queue's members take one step per {@value QueueStore#MAX_BATCH_SIZE}).
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
	 * {@link #add}), lest a member that added before the cancel enqueue the added members
	 * after the cancel looked for them in their queues; they are counted cancelled once
	 * the adding member finished ({@link #settle}). The batch takes no add once it is
	 * cancelled.
	 */
	private void forestallAdds(String meta) {
		ScanOptions adds = ScanOptions.scanOptions().match(ADD + "*").count(QueueStore.MAX_BATCH_SIZE).build();
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
		for (String shard : this.store.shards(queue)) {
			this.enqueueOperations.forestall(shard, callId, this.store.getResendProtection().getWindow());
		}
	}

	/**
	 * Make a batch that does not exist yet ended and cancelled, so that its creation is
	 * refused: a batch step of a chain cancelled after a mover read the step, which that
	 * mover may still create. A batch created before is left as it is.
	 * @param batchId the batch id
	 * @param window how long the batch is kept so, at least as long as the mover's call
	 * may come
	 */
	void forestall(String batchId, Duration window) {
		run(batchId, List.of("forestall", QueueStore.millis(window)));
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
	 * Enqueue the callbacks that a batch's script returned, each as a call Redis
	 * remembers for the batch's linger (at least the re-send window), and hand a nested
	 * batch's end over to its parent, which counts it once, then record each delivered.
	 */
	void deliver(String batchId, List<?> undelivered) {
		if (undelivered.isEmpty()) {
			return;
		}
		Duration linger = Duration.ofMillis(Long.parseLong(undelivered.get(0).toString()));
		Duration window = maximum(linger, this.store.getResendProtection().getWindow());
		for (int i = 1; i < undelivered.size(); i += 2) {
			String name = (String) undelivered.get(i);
			String value = (String) undelivered.get(i + 1);
			if (name.startsWith(ADD)) {
				settle(batchId, name, value);
				continue;
			}
			if (PARENT.equals(name)) {
				handToParent(value, BATCH_QUEUE, batchId);
			}
			else {
				PreparedCommand callback = StoredJob.parse(value);
				this.enqueueOperations.enqueueOnce(callback.queue(), "batch:" + batchId + ":" + name,
						List.of(callback.command()), window);
			}
			run(batchId, List.of("delivered", name));
		}
	}

	/**
	 * Apply a nested workflow's end to the workflow it is a member or step of, as a
	 * member's finish is applied.
	 * @param parent what the nested workflow's script returned: {@code <link>\n<outcome>}
	 * @param kind {@link #BATCH_QUEUE} or {@link #CHAIN_QUEUE}
	 * @param id the nested workflow's id, its member id in the parent
	 */
	void handToParent(String parent, String kind, String id) {
		int cut = parent.lastIndexOf('\n');
		apply(parent.substring(0, cut), List.of("apply", kind, id, parent.substring(cut + 1)));
	}

	/**
	 * Settle an add that its member finished without confirming ({@code add:<member>:<n>}
	 * as {@code batch.lua} returns it). Its enqueue is first made again as the same call
	 * with no jobs, so that the enqueue, should it still come, changes nothing; then its
	 * members that are neither linked in their queue nor handed over from there were
	 * never enqueued, or finished and were counted, and are counted cancelled. Settled
	 * again (a mover that died before it recorded this), it counts nothing twice.
	 */
	private void settle(String batchId, String name, String add) {
		List<String> parts = List.of(add.split("\n"));
		String queue = parts.get(0);
		List<String> ids = parts.subList(2, parts.size());
		forestall(queue, parts.get(1));
		countNeverEnqueued(batchId, List.of(queue), ids);
		int number = name.lastIndexOf(':');
		run(batchId, List.of("settled", name.substring(ADD.length(), number), name.substring(number + 1)));
	}

	/**
	 * Count cancelled the members whose enqueues were forestalled: those that are neither
	 * linked in any shard of their queues nor handed over from there were never enqueued,
	 * or finished and were counted, which counting them again does not change.
	 */
	private void countNeverEnqueued(String batchId, List<String> queues, List<String> ids) {
		StringRedisTemplate redis = this.store.getTemplate();
		List<String> handOvers = new ArrayList<>(ids.size() * OUTCOMES.size());
		for (String id : ids) {
			for (String outcome : OUTCOMES) {
				handOvers.add(batchId + "\n" + id + "\n" + outcome);
			}
		}
		boolean[] found = new boolean[ids.size()];
		for (String shard : queues.stream().flatMap((queue) -> this.store.shards(queue).stream()).toList()) {
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
		// the queue of an apply names the lists of succeeded and dead members, which a
		// cancelled member does not join
		List<String> args = new ArrayList<>(List.of("apply", queues.get(0)));
		for (int i = 0; i < ids.size(); i++) {
			if (!found[i]) {
				args.add(ids.get(i));
				args.add("c");
			}
		}
		if (args.size() > 2) {
			deliver(batchId, run(batchId, args));
		}
	}

	List<?> run(String batchId, List<String> args) {
		List<?> result = this.store.getTemplate()
			.execute(this.script, this.store.batchKeys(batchId).all(), args.toArray());
		return (result != null) ? result : List.of();
	}

	private static BatchStatus.State state(String state, @Nullable String outcome) {
		return switch (state) {
			case "creating" -> BatchStatus.State.CREATING;
			case "open" -> BatchStatus.State.RUNNING;
			default -> switch (String.valueOf(outcome)) {
				case "succeeded" -> BatchStatus.State.SUCCEEDED;
				case "cancelled" -> BatchStatus.State.CANCELLED;
				default -> BatchStatus.State.FAILED;
			};
		};
	}

	private static long number(@Nullable Object value) {
		return (value != null) ? Long.parseLong(value.toString()) : 0;
	}

	static Duration maximum(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> script() {
		ClassPathResource resource = new ClassPathResource("batch.lua", BatchOperations.class);
		try {
			return RedisScript.of(resource.getContentAsString(StandardCharsets.UTF_8), List.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Redq script " + resource, ex);
		}
	}

}
