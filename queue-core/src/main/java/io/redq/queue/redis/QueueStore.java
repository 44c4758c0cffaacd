package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.zip.CRC32;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.redq.queue.core.DataModelMismatchException;
import io.redq.queue.core.QueueNames;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultScriptExecutor;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.core.script.ScriptExecutor;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.Assert;

/**
 * The queues kept in Redis under one key prefix: the template and scripts that reach them
 * and each queue's keys, shared by the operator, producer and listener calls.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class QueueStore {

	/**
	 * The most jobs one script call takes or hands out. Lua's {@code unpack}, which
	 * passes a batch to one variadic command, stops at about 8,000 values, and a script
	 * that stops halfway keeps the writes it made: the calls split bigger batches, or
	 * take no more.
	 */
	public static final int MAX_BATCH_SIZE = 1000;

	private final StringRedisTemplate redis;

	private final QueueScripts scripts;

	private final Keyspace keyspace;

	private final Map<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final ResendProtection resendProtection = new ResendProtection();

	private final ShardPlacement placement;

	private final Map<String, Integer> shardCounts = new ConcurrentHashMap<>();

	private int defaultShards = 1;

	private final Map<String, List<String>> shards = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> nextShard = new ConcurrentHashMap<>();

	private final Set<String> served = ConcurrentHashMap.newKeySet();

	private ReplicaWait replicaWait = ReplicaWait.NONE;

	/**
	 * Create an instance.
	 * @param connectionFactory the Redis connection factory
	 * @param scripts the queue scripts
	 * @param keyspace the keys under the prefix
	 */
	public QueueStore(RedisConnectionFactory connectionFactory, QueueScripts scripts, Keyspace keyspace) {
		this.keyspace = keyspace;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.redis.setScriptExecutor(new DataModelErrors(new DefaultScriptExecutor<>(this.redis)));
		this.scripts = scripts;
		this.placement = new ShardPlacement(this.redis, keyspace);
	}

	/**
	 * Return the keys of a queue.
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}
	 * @return its keys
	 */
	public QueueKeys keys(String queue) {
		return this.keys.computeIfAbsent(queue, this::keysOf);
	}

	private QueueKeys keysOf(String shard) {
		int brace = shard.indexOf('{');
		if (brace > 0 && shard.endsWith("}")) {
			String queue = shard.substring(0, brace);
			String number = shard.substring(brace + 1, shard.length() - 1);
			// read once: the names and the tags of an unknown count come from one
			// placement
			List<String> stored = countKnown(queue) ? null : this.placement.stored(queue);
			List<String> names = (stored != null) ? names(queue, stored) : shards(queue);
			if (number.chars().allMatch(Character::isDigit) && names.contains(shard)) {
				List<String> tags = (stored != null) ? stored : tags(queue);
				return this.keyspace.shard(queue, tags.get(Integer.parseInt(number)));
			}
		}
		// a queue name, checked: no valid one has a brace
		return this.keyspace.queue(shard);
	}

	/**
	 * Set how many shards a queue has: each its own hash tag, so its own slot, and so
	 * possibly its own Redis Cluster master (see {@link ShardPlacement}). Set before the
	 * queue is used.
	 * @param queue the queue
	 * @param count the number of shards, at least 1 (the default)
	 */
	public void setShards(String queue, int count) {
		Assert.isTrue(count >= 1, () -> "Queue '" + queue + "' needs at least 1 shard, not " + count);
		this.shardCounts.put(QueueNames.validate(queue), count);
	}

	/**
	 * Set how many shards a queue has unless {@link #setShards(String, int)} says
	 * otherwise. Set before the queues are used.
	 * @param count the number of shards, at least 1 (the default)
	 */
	public void setDefaultShards(int count) {
		Assert.isTrue(count >= 1, () -> "A queue needs at least 1 shard, not " + count);
		this.defaultShards = count;
	}

	/**
	 * Return how many shards a queue has.
	 * @param queue the queue
	 * @return the number of shards, 1 unless set otherwise
	 */
	public int getShards(String queue) {
		return this.shardCounts.getOrDefault(queue, this.defaultShards);
	}

	/**
	 * Return the shards of a queue, by the name every call that takes a queue takes for
	 * one shard: the queue name for the first, whose keys are the queue's own, then
	 * <code>&lt;queue&gt;{&lt;n&gt;}</code> (no queue name has a brace). Only this
	 * package knows shards.
	 * @param queue the queue
	 * @return the shards, one (the queue) unless the queue has more
	 */
	List<String> shards(String queue) {
		List<String> shards = this.shards.get(queue);
		return (shards != null) ? shards : this.shards.computeIfAbsent(queue, this::shardsOf);
	}

	private List<String> shardsOf(String queue) {
		return (getShards(queue) == 1) ? List.of(queue) : names(queue, tags(queue));
	}

	/**
	 * Return the shards of a queue that hold its jobs, to read or change them (never to
	 * dispatch to): those of {@link #shards(String)} when this instance knows the queue's
	 * shard count (set for the queue or by default, or checked since it serves the
	 * queue), else those of the placement stored in Redis, read afresh and never written,
	 * so that an instance that only inspects and operates the queue reaches every shard
	 * without changing what the others chose, and its dispatches keep to the count it was
	 * given.
	 * @param queue the queue
	 * @return the shards, the queue's own keys first
	 */
	List<String> shardsToOperate(String queue) {
		return shardsToOperate(queue, null);
	}

	/**
	 * Return the shards of a queue that hold its jobs as {@link #shardsToOperate(String)}
	 * does, waiting at most the given time for the stored placement.
	 * @param queue the queue
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @return the shards, the queue's own keys first
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	List<String> shardsToOperate(String queue, @Nullable Duration timeout) {
		if (countKnown(queue)) {
			return shards(queue);
		}
		String key = this.keyspace.placement(queue);
		String what = "read the shards of queue '" + queue + "'";
		String stored = await(
				runAsync((commands) -> commands.get(key.getBytes(StandardCharsets.UTF_8))
					.thenApply((value) -> (value != null) ? new String(value, StandardCharsets.UTF_8) : null)
					.toCompletableFuture(), () -> this.redis.opsForValue().get(key)),
				timeout, () -> new QueryTimeoutException("Redis did not answer within " + timeout.toMillis()
						+ " ms when asked to " + what + ": it is down, unreachable or overloaded"),
				what);
		return names(queue, ShardPlacement.parse(queue, stored));
	}

	private boolean countKnown(String queue) {
		return this.defaultShards > 1 || this.shardCounts.containsKey(queue) || this.served.contains(queue);
	}

	private static List<String> names(String queue, List<String> tags) {
		List<String> names = new ArrayList<>();
		names.add(queue);
		for (int i = 1; i < tags.size(); i++) {
			names.add(queue + "{" + i + "}");
		}
		return List.copyOf(names);
	}

	private List<String> tags(String queue) {
		return this.placement.tags(queue, getShards(queue));
	}

	/**
	 * Check that the shards stored for a queue agree with its configured count, as an
	 * instance that starts serving the queue does: a count that would drop a shard that
	 * holds jobs is refused.
	 * @param queue the queue
	 * @throws IllegalStateException when the count would drop a shard that holds jobs
	 */
	void checkShards(String queue) {
		tags(queue);
		this.served.add(queue);
	}

	/**
	 * Return the shard of a queue that a job goes to: the one its key maps to (a stable
	 * hash), so that jobs of one key always share a shard, or the next in turn for a job
	 * without one.
	 * @param queue the queue
	 * @param key what keeps the job with related ones (its group or caller-given id), or
	 * {@code null} for none
	 * @return the shard
	 */
	String shardOf(String queue, @Nullable String key) {
		List<String> shards = shards(queue);
		if (shards.size() == 1) {
			return queue;
		}
		if (key == null) {
			int next = this.nextShard.computeIfAbsent(queue, (name) -> new AtomicInteger()).getAndIncrement();
			return shards.get(Math.floorMod(next, shards.size()));
		}
		return shardOfKey(shards, key);
	}

	private static String shardOfKey(List<String> shards, String key) {
		CRC32 hash = new CRC32();
		hash.update(key.getBytes(StandardCharsets.UTF_8));
		return shards.get((int) (hash.getValue() % shards.size()));
	}

	/**
	 * Return the shards to look for a job in by its id (see
	 * {@link #shardsToOperate(String)}): first the one its id maps to.
	 * @param queue the queue
	 * @param id the job id
	 * @return the shards, the likeliest first
	 */
	List<String> shardsOfId(String queue, String id) {
		return shardsOfId(queue, id, null);
	}

	/**
	 * Return the shards to look for a job in by its id as
	 * {@link #shardsOfId(String, String)} does, waiting at most the given time for the
	 * stored placement.
	 * @param queue the queue
	 * @param id the job id
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @return the shards, the likeliest first
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	List<String> shardsOfId(String queue, String id, @Nullable Duration timeout) {
		return likeliestFirst(shardsToOperate(queue, timeout), id);
	}

	private static List<String> likeliestFirst(List<String> shards, String id) {
		if (shards.size() == 1) {
			return shards;
		}
		List<String> ordered = new ArrayList<>(shards);
		String first = shardOfKey(shards, id);
		ordered.remove(first);
		ordered.add(0, first);
		return ordered;
	}

	/**
	 * Return the shard that holds a job or its result, else the one its id maps to: one
	 * read per shard looked at.
	 * @param queue the queue
	 * @param id the job id
	 * @return the shard
	 */
	String shardHolding(String queue, String id) {
		List<String> shards = shardsOfId(queue, id);
		for (String shard : shards) {
			QueueKeys keys = keys(shard);
			if (shards.size() == 1 || this.redis.opsForHash().hasKey(keys.jobs(), id)
					|| Boolean.TRUE.equals(this.redis.hasKey(keys.result(id)))) {
				return shard;
			}
		}
		return shards.get(0);
	}

	/**
	 * Return the queue a shard is of, as the callers know it (see {@link #shards}).
	 * @param shard the shard, or a queue name
	 * @return the queue
	 */
	static String queueOf(String shard) {
		int brace = shard.indexOf('{');
		return (brace < 0) ? shard : shard.substring(0, brace);
	}

	/**
	 * Return the shard a reservation's lease token came from (see
	 * {@link #shardToken(String, String)}).
	 * @param queue the queue
	 * @param token the lease token
	 * @return the shard
	 */
	static String shardOfToken(String queue, String token) {
		int slash = token.indexOf('/');
		return (slash < 0) ? queue : queue + "{" + token.substring(0, slash) + "}";
	}

	/**
	 * Return a lease as its shard's scripts know it, without the shard in its token.
	 * @param lease the lease
	 * @return the lease in its shard
	 */
	static Lease inShard(Lease lease) {
		int slash = lease.token().indexOf('/');
		return (slash < 0) ? lease : new Lease(lease.id(), lease.token().substring(slash + 1));
	}

	/**
	 * Return the token of a lease as the callers see it: a shard other than the first
	 * puts its number in front, so that a later call finds the shard and no two shards'
	 * tokens are equal.
	 * @param shard the shard that gave the lease
	 * @param token its token there
	 * @return the token
	 */
	static String shardToken(String shard, String token) {
		int brace = shard.indexOf('{');
		return (brace < 0) ? token : shard.substring(brace + 1, shard.length() - 1) + "/" + token;
	}

	/**
	 * Return the keys of a batch.
	 * @param batchId the batch id
	 * @return its keys
	 */
	public BatchKeys batchKeys(String batchId) {
		return this.keyspace.batch(batchId);
	}

	/**
	 * Return the keys under the prefix of these queues.
	 * @return the keyspace
	 */
	public Keyspace getKeyspace() {
		return this.keyspace;
	}

	/**
	 * Return the template the calls run on.
	 * @return the template
	 */
	public StringRedisTemplate getTemplate() {
		return this.redis;
	}

	/**
	 * Return the queue scripts.
	 * @return the scripts
	 */
	public QueueScripts getScripts() {
		return this.scripts;
	}

	/**
	 * Return what makes the calls that change a queue harmless when re-sent.
	 * @return the re-send protection of these queues
	 */
	public ResendProtection getResendProtection() {
		return this.resendProtection;
	}

	/**
	 * Run a script that changes a queue as the given call: when Redis still remembers
	 * that call, nothing changes and its reply is returned again. A second run of one
	 * call is what Lettuce sends when it re-sends the first.
	 * @param <T> the result type
	 * @param script the script
	 * @param queue the queue
	 * @param call the call
	 * @param args the arguments, which follow the call's own
	 * @return the result
	 */
	public <T> @Nullable T runOnce(RedisScript<T> script, String queue, ResendProtection.Call call, List<String> args) {
		return runOnce(script, queue, call, List.of(), args);
	}

	/**
	 * Run a script that changes a queue as the given call, with keys besides the queue's,
	 * as {@link #runOnce(RedisScript, String, ResendProtection.Call, List)} does.
	 * @param <T> the result type
	 * @param script the script
	 * @param queue the queue
	 * @param call the call
	 * @param extraKeys the keys that follow the queue's, before the call's own
	 * @param args the arguments, which follow the call's own
	 * @return the result
	 */
	public <T> @Nullable T runOnce(RedisScript<T> script, String queue, ResendProtection.Call call,
			List<String> extraKeys, List<String> args) {
		List<String> keys = new ArrayList<>(keys(queue).all());
		keys.addAll(extraKeys);
		keys.add(call.key());
		return this.redis.execute(script, keys, argsOf(call, args).toArray());
	}

	/**
	 * Return the keys of a call's script: the queue's keys, then the call's lane key.
	 * @param queue the queue
	 * @param call the call
	 * @return the keys
	 */
	List<String> keysOf(String queue, ResendProtection.Call call) {
		List<String> keys = new ArrayList<>(keys(queue).all());
		keys.add(call.key());
		return keys;
	}

	/**
	 * Return the arguments of a call's script: the call's own, then the given ones.
	 * @param call the call
	 * @param args the arguments of the script
	 * @return the arguments
	 */
	static List<String> argsOf(ResendProtection.Call call, List<String> args) {
		List<String> all = new ArrayList<>(call.args().size() + args.size());
		all.addAll(call.args());
		all.addAll(args);
		return all;
	}

	/**
	 * Run a script that returns a list on a queue's keys.
	 * @param script the script
	 * @param queue the queue
	 * @param args the arguments
	 * @return the list, empty when the script returned none
	 */
	@SuppressWarnings("rawtypes")
	public List<?> runForList(RedisScript<List> script, String queue, List<String> args) {
		List<?> result = this.redis.execute(script, keys(queue).all(), args.toArray());
		return (result != null) ? result : List.of();
	}

	/**
	 * Set how many replicas must have a dispatch or an acknowledgement before it counts
	 * as done.
	 * @param replicaWait the replicas to wait for; {@link ReplicaWait#NONE} by default
	 */
	public void setReplicaWait(ReplicaWait replicaWait) {
		this.replicaWait = replicaWait;
	}

	/**
	 * Return the replicas that writes wait for.
	 * @return the replica wait; {@link ReplicaWait#NONE} by default
	 */
	ReplicaWait getReplicaWait() {
		return this.replicaWait;
	}

	/**
	 * Run a script that returns a list, and then wait for the replicas (see
	 * {@link #setReplicaWait(ReplicaWait)}).
	 * @param script the script
	 * @param keys the keys, those of a queue and any the script needs besides
	 * @param args the arguments
	 * @param written what the script writes, for the message of the exception
	 * @return the list, empty when the script returned none
	 * @throws io.redq.queue.core.ReplicationTimeoutException when fewer replicas
	 * confirmed the writes within the timeout; the writes stay on the master
	 */
	@SuppressWarnings("rawtypes")
	public List<?> runForListOnReplicas(RedisScript<List> script, List<String> keys, List<String> args,
			String written) {
		List<?> result = this.replicaWait.write(this.redis, script, keys, args, (wrote) -> true, written);
		return (result != null) ? result : List.of();
	}

	/**
	 * Run a script that returns a list, and then wait for the replicas (see
	 * {@link #setReplicaWait(ReplicaWait)}), without blocking: the caller may stop
	 * waiting for the reply while the call stays in flight, and the returned future
	 * completes only when the call has its reply or failed (with Lettuce; with another
	 * client the call runs before this method returns).
	 * @param script the script
	 * @param keys the keys, those of a queue and any the script needs besides
	 * @param args the arguments
	 * @param written what the script writes, for the message of the exception
	 * @return the list, empty when the script returned none; or the failure, a
	 * {@link io.redq.queue.core.ReplicationTimeoutException} when fewer replicas
	 * confirmed the writes within the timeout
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	public CompletableFuture<List<?>> runForListOnReplicasAsync(RedisScript<List> script, List<String> keys,
			List<String> args, String written) {
		if (this.replicaWait.isEnabled()) {
			return this.replicaWait.writeAsync(script, keys, args, (wrote) -> true, written);
		}
		return runAsync((commands) -> AsyncScripts.run(commands, script, keys, args),
				() -> runForListOnReplicas(script, keys, args, written));
	}

	/**
	 * Run a script that changes a queue and returns a number as a new call of the
	 * {@link ResendProtection}, waiting at most the given time for its reply.
	 * @param script the script
	 * @param queue the queue
	 * @param args the arguments, which follow the call's own
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param what what the call does, for the messages of its failures: e.g.
	 * {@code "cancel job 'a' of queue 'mail'"}
	 * @return the number, or {@code null} when the script returned none
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 * @see #runOnce(RedisScript, String, List, List, Duration, String)
	 */
	public @Nullable Long runOnce(RedisScript<Long> script, String queue, List<String> args, @Nullable Duration timeout,
			String what) {
		return runOnce(script, queue, List.of(), args, timeout, what);
	}

	/**
	 * Run a script that changes a queue and returns a number as a new call of the
	 * {@link ResendProtection}, with keys besides the queue's, waiting at most the given
	 * time for its reply.
	 * <p>
	 * A call that times out is not cancelled: Lettuce holds it until it has its reply or
	 * its own command timeout, and may re-send it meanwhile after a reconnect, so its
	 * lane stays taken until then.
	 * @param script the script
	 * @param queue the queue
	 * @param extraKeys the keys that follow the queue's, before the call's own
	 * @param args the arguments, which follow the call's own
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param what what the call does, for the messages of its failures
	 * @return the number, or {@code null} when the script returned none
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	public @Nullable Long runOnce(RedisScript<Long> script, String queue, List<String> extraKeys, List<String> args,
			@Nullable Duration timeout, String what) {
		ResendProtection.Call call = this.resendProtection.begin(keys(queue));
		CompletableFuture<Long> reply;
		try {
			List<String> keys = new ArrayList<>(keys(queue).all());
			keys.addAll(extraKeys);
			keys.add(call.key());
			List<String> allArgs = argsOf(call, args);
			reply = runAsync((commands) -> AsyncScripts.runForLong(commands, script, keys, allArgs),
					() -> this.redis.execute(script, keys, allArgs.toArray()));
		}
		catch (RuntimeException ex) {
			this.resendProtection.end(call);
			throw ex;
		}
		// the lane is free once the call can no longer be re-sent
		reply.whenComplete((result, ex) -> this.resendProtection.end(call));
		return await(reply, timeout, () -> new QueryTimeoutException("Redis did not answer within " + timeout.toMillis()
				+ " ms when asked to " + what
				+ ": it is down, unreachable or overloaded. The call is not cancelled: Redis may still run it, once, "
				+ "before the Redis command timeout (spring.data.redis.timeout). Check that Redis is up and reachable; "
				+ "asking again is harmless."), what);
	}

	/**
	 * Send a script on a connection without blocking when it is Lettuce's, else run it
	 * before returning.
	 */
	private <T> CompletableFuture<T> runAsync(
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> lettuce,
			Supplier<@Nullable T> blocking) {
		RedisConnection connection = this.redis.getRequiredConnectionFactory().getConnection();
		if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
			// given back before the template takes one: a pool of one must not wait for
			// itself
			connection.close();
			return CompletableFuture.completedFuture(blocking.get());
		}
		@SuppressWarnings("unchecked")
		RedisClusterAsyncCommands<byte[], byte[]> bytes = (RedisClusterAsyncCommands<byte[], byte[]>) commands;
		CompletableFuture<T> reply;
		try {
			reply = lettuce.apply(bytes);
		}
		catch (RuntimeException ex) {
			connection.close();
			throw ex;
		}
		// a connection of its own (without a shared one) stays open while the call is in
		// flight: closing it would fail a call that Redis may still run
		return reply.whenComplete((result, ex) -> connection.close());
	}

	/**
	 * Wait for a call's reply.
	 * @param <T> the result type
	 * @param reply the reply
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param timedOut the exception to throw when the timeout passes
	 * @param what what the call does, for the messages of other failures
	 * @return the reply
	 */
	static <T> T await(CompletableFuture<T> reply, @Nullable Duration timeout, Supplier<RuntimeException> timedOut,
			String what) {
		try {
			return (timeout != null) ? reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS) : reply.get();
		}
		catch (TimeoutException ex) {
			throw timedOut.get();
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException("Redis failed to " + what, ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis to " + what
					+ "; the call is not cancelled and may still change the queue", ex);
		}
	}

	/**
	 * Run a script that returns a number on a queue's keys.
	 * @param script the script
	 * @param queue the queue
	 * @param args the arguments
	 * @return the number, or {@code null} when the script returned none
	 */
	public @Nullable Long runForLong(RedisScript<Long> script, String queue, String... args) {
		return this.redis.execute(script, keys(queue).all(), (Object[]) args);
	}

	/**
	 * Read a number a script returned.
	 * @param values what the script returned
	 * @param index the index of the number
	 * @return the number
	 */
	public static long number(List<?> values, int index) {
		return ((Number) values.get(index)).longValue();
	}

	/**
	 * Read the strings a script returned.
	 * @param values what the script returned
	 * @return the strings
	 */
	static List<String> strings(List<?> values) {
		List<String> strings = new ArrayList<>(values.size());
		for (Object value : values) {
			strings.add((String) value);
		}
		return strings;
	}

	/**
	 * Write a duration as the milliseconds the scripts take.
	 * @param duration the duration
	 * @return its milliseconds, in decimal
	 */
	static String millis(Duration duration) {
		return Long.toString(duration.toMillis());
	}

	/**
	 * Return a {@link DataModelMismatchException} for the error of a script that found
	 * another data model in Redis (see {@code common.lua}), else the given exception.
	 * @param ex a script's failure
	 * @return the exception to throw
	 */
	static DataAccessException dataModelErrorOr(DataAccessException ex) {
		String message = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
		return (message != null && message.startsWith(DataModelErrors.MISMATCH))
				? new DataModelMismatchException(message, ex) : ex;
	}

	/**
	 * Runs the scripts on the template, sends a call again while Redis refuses it during
	 * a failover (see {@link ScriptRefusals}), and turns the error of a script that found
	 * another data model in Redis (see {@code common.lua}) into a
	 * {@link DataModelMismatchException}, whichever call ran it.
	 */
	private record DataModelErrors(ScriptExecutor<String> executor) implements ScriptExecutor<String> {

		private static final String MISMATCH = "Redq data model ";

		@Override
		public <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
			return translated(() -> this.executor.execute(script, keys, args));
		}

		@Override
		public <T> T execute(RedisScript<T> script, RedisSerializer<?> argsSerializer,
				RedisSerializer<T> resultSerializer, List<String> keys, Object... args) {
			return translated(() -> this.executor.execute(script, argsSerializer, resultSerializer, keys, args));
		}

		private static <T> T translated(Supplier<T> call) {
			try {
				return ScriptRefusals.retried(call);
			}
			catch (DataAccessException ex) {
				throw dataModelErrorOr(ex);
			}
		}

	}

}
