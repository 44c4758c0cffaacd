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

	private final ResendProtection resendProtection = new ResendProtection();

	private final AsyncCalls calls;

	private final QueueShards shards;

	private final ShardChoice shardChoice;

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
		this.calls = new AsyncCalls(this.redis);
		this.shards = new QueueShards(this.redis, this.calls, keyspace);
		this.shardChoice = new ShardChoice(this.redis, this.calls, this.shards);
	}

	/**
	 * Return the keys of a queue, or of one of its shards.
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}, or a
	 * shard's (see {@link ShardNames})
	 * @return its keys
	 */
	public QueueKeys keys(String queue) {
		return this.shards.keys(queue);
	}

	/**
	 * Set how many shards a queue has: each its own hash tag, so its own slot, and so
	 * possibly its own Redis Cluster master (see {@link ShardPlacement}). Set before the
	 * queue is used.
	 * @param queue the queue
	 * @param count the number of shards, at least 1 (the default)
	 */
	public void setShards(String queue, int count) {
		this.shards.setShards(queue, count);
	}

	/**
	 * Set how many shards a queue has unless {@link #setShards(String, int)} says
	 * otherwise. Set before the queues are used.
	 * @param count the number of shards, at least 1 (the default)
	 */
	public void setDefaultShards(int count) {
		this.shards.setDefaultShards(count);
	}

	/**
	 * Return how many shards a queue has.
	 * @param queue the queue
	 * @return the number of shards, 1 unless set otherwise
	 */
	public int getShards(String queue) {
		return this.shards.getShards(queue);
	}

	/**
	 * Return the shards of the queues.
	 * @return the shards
	 */
	QueueShards queueShards() {
		return this.shards;
	}

	/**
	 * Return which shard a job goes to, and where to look for one by its id.
	 * @return the shard choice
	 */
	ShardChoice shardChoice() {
		return this.shardChoice;
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
	 * Send a script that returns a list on a queue's keys without blocking (see
	 * {@link #runForListOnReplicasAsync}).
	 * @param script the script
	 * @param queue the queue
	 * @param args the arguments
	 * @return the list, empty when the script returned none
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	CompletableFuture<List<?>> runForListAsync(RedisScript<List> script, String queue, List<String> args) {
		List<String> keys = keys(queue).all();
		return this.calls.run((commands) -> AsyncScripts.run(commands, script, keys, args),
				() -> runForList(script, queue, args));
	}

	/**
	 * Send the read of whether a key exists without blocking (with another client than
	 * Lettuce, the read runs before this method returns).
	 * @param key the key
	 * @return whether it exists
	 */
	CompletableFuture<Boolean> hasKeyAsync(String key) {
		return this.calls.run((commands) -> commands.exists(key.getBytes(StandardCharsets.UTF_8))
			.thenApply((found) -> found > 0)
			.toCompletableFuture(), () -> Boolean.TRUE.equals(this.redis.hasKey(key)));
	}

	/**
	 * Run a script that returns a list on the given keys, waiting at most the given time
	 * for its reply. A call that times out is not cancelled: Lettuce may still deliver it
	 * until its command timeout.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param what what the call does, for the messages of its failures
	 * @return the list, empty when the script returned none
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	List<?> runForList(RedisScript<List> script, List<String> keys, List<String> args, @Nullable Duration timeout,
			String what) {
		List<?> result = AsyncCalls.await(this.calls.run((commands) -> AsyncScripts.run(commands, script, keys, args),
				() -> this.redis.execute(script, keys, args.toArray())), timeout, what);
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
		return this.calls.run((commands) -> AsyncScripts.run(commands, script, keys, args),
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
			reply = this.calls.run((commands) -> AsyncScripts.runForLong(commands, script, keys, allArgs),
					() -> this.redis.execute(script, keys, allArgs.toArray()));
		}
		catch (RuntimeException ex) {
			this.resendProtection.end(call);
			throw ex;
		}
		// the lane is free once the call can no longer be re-sent
		reply.whenComplete((result, ex) -> this.resendProtection.end(call));
		return AsyncCalls.await(reply, timeout, () -> new QueryTimeoutException("Redis did not answer within "
				+ timeout.toMillis() + " ms when asked to " + what
				+ ": it is down, unreachable or overloaded. The call is not cancelled: Redis may still run it, once, "
				+ "before the Redis command timeout (spring.data.redis.timeout). Check that Redis is up and reachable; "
				+ "asking again is harmless."), what);
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
