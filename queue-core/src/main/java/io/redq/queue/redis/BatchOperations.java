package io.redq.queue.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Batches in Redis: the hand-over of their members' completions from the members' queues,
 * the delivery of their callbacks and reads; their creation
 * ({@link #getCreationOperations()}) and cancellation ({@link #getCancelOperations()}).
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
	static final String ADD = "add:";

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = script();

	private final QueueStore store;

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	private final EnqueueOperations enqueueOperations;

	private final ChainOperations chainOperations;

	/** The index of the batches, {@link Keyspace#batchIndex()}. */
	private final CreationIndex index;

	private final BatchCreationOperations creationOperations;

	private final BatchCancelOperations cancelOperations;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public BatchOperations(QueueStore store) {
		this(new EnqueueOperations(store));
	}

	/**
	 * Create an instance that enqueues with the given operations, which report the jobs
	 * that enter queues.
	 */
	BatchOperations(EnqueueOperations enqueueOperations) {
		this(enqueueOperations, SCRIPT, null, null);
	}

	/**
	 * Create an instance whose chains are the given ones.
	 * @param enqueueOperations the enqueue operations of the chains
	 * @param chainOperations the chains
	 */
	BatchOperations(EnqueueOperations enqueueOperations, ChainOperations chainOperations) {
		this(enqueueOperations, SCRIPT, null, chainOperations);
	}

	/**
	 * Create an instance that runs another version of {@code batch.lua}: for tests that
	 * check what its invariants catch.
	 * @param store the queues
	 * @param script the batch script
	 */
	@SuppressWarnings("rawtypes")
	public BatchOperations(QueueStore store, RedisScript<List> script) {
		this(new EnqueueOperations(store), script, null, null);
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
		this(new EnqueueOperations(store), script, chainScript, null);
	}

	/**
	 * Create an instance that hands chain links to the given chains, or to chains of its
	 * own that run the given version of {@code chain.lua} or the shipped one.
	 */
	@SuppressWarnings("rawtypes")
	private BatchOperations(EnqueueOperations enqueueOperations, RedisScript<List> script,
			@Nullable RedisScript<List> chainScript, @Nullable ChainOperations chainOperations) {
		QueueStore store = enqueueOperations.getStore();
		this.store = store;
		this.script = script;
		this.enqueueOperations = enqueueOperations;
		this.chainOperations = (chainOperations != null) ? chainOperations
				: new ChainOperations(enqueueOperations, chainScript, this);
		this.index = new CreationIndex(store.getTemplate(), store.getKeyspace().batchIndex(),
				(id) -> Boolean.TRUE.equals(store.getTemplate().hasKey(store.batchKeys(id).meta())));
		this.creationOperations = new BatchCreationOperations(this, this.enqueueOperations, this.index);
		this.cancelOperations = new BatchCancelOperations(store, this, this.enqueueOperations);
	}

	/**
	 * Return the operations that create batches and add members to them.
	 * @return the creation operations
	 */
	public BatchCreationOperations getCreationOperations() {
		return this.creationOperations;
	}

	/**
	 * Return the operations that cancel batches.
	 * @return the cancel operations
	 */
	public BatchCancelOperations getCancelOperations() {
		return this.cancelOperations;
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
		String queue = ShardNames.queueOf(shard);
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
			for (String shard : this.store.queueShards().shardsToOperate(queue)) {
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
				this.cancelOperations.settle(batchId, name, value);
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

	List<?> run(String batchId, List<String> args) {
		List<?> result = this.store.getTemplate()
			.execute(this.script, this.store.batchKeys(batchId).all(), args.toArray());
		return (result != null) ? result : List.of();
	}

	/**
	 * Run the batch script as {@link #run(String, List)} does, waiting at most the given
	 * time for its reply; a call that times out is not cancelled.
	 */
	List<?> run(String batchId, List<String> args, @Nullable Duration timeout, String what) {
		return this.store.runForList(this.script, this.store.batchKeys(batchId).all(), args, timeout, what);
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

	static long number(@Nullable Object value) {
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
