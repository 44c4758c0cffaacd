package io.redq.queue.redis;

import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Predicate;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.redq.queue.core.ReplicationTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * How many replicas must have a write before it counts as done: after the write, Redis
 * {@code WAIT} on the connection it ran on ({@code WAIT} counts the writes of its own
 * connection). Standalone, Sentinel-managed and Cluster Redis on Lettuce.
 * <p>
 * On a Redis Cluster, the write and its {@code WAIT} go to the master that serves the
 * slot of the script's keys (for a sharded queue, the shard's master), on that master's
 * connection: a {@code WAIT} on another node would count that node's replicas, of none of
 * this connection's writes, and pass. A script that the node refuses because the slot
 * moved ({@code MOVED}, {@code READONLY} after a failover) changed nothing there: the
 * topology is read again and the script and its {@code WAIT} go to the master that serves
 * the slot now.
 * <p>
 * The writes that wait run on connections of their own, opened by the connection
 * factory's client and reused, one per write in flight: a {@code WAIT} holds its
 * connection until the replicas confirm or the timeout passes, and on the shared
 * connection it would hold every other command of the application, the workers' too. They
 * close with the connection factory.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class ReplicaWait {

	/** Waits for no replica: writes are done when the master has them. */
	public static final ReplicaWait NONE = new ReplicaWait();

	/** The most connections kept open for later writes once their write is done. */
	private static final int MAX_IDLE_CONNECTIONS = 8;

	private final @Nullable LettuceConnectionFactory connectionFactory;

	private final int replicas;

	private final Duration timeout;

	private final Deque<StatefulConnection<byte[], byte[]>> idle = new ConcurrentLinkedDeque<>();

	private ReplicaWait() {
		this.connectionFactory = null;
		this.replicas = 0;
		this.timeout = Duration.ofSeconds(1);
	}

	/**
	 * Create an instance.
	 * @param connectionFactory the factory of the connections the writes run on
	 * @param replicas the replicas that must confirm each write, 0 for none
	 * @param timeout the longest wait for them
	 * @throws IllegalStateException when replicas are to be waited for with another
	 * client than Lettuce
	 */
	public ReplicaWait(RedisConnectionFactory connectionFactory, int replicas, Duration timeout) {
		Assert.isTrue(replicas >= 0, "replicas must not be negative");
		Assert.isTrue(timeout.toMillis() > 0, "timeout must be at least 1ms: WAIT 0 would wait forever");
		if (replicas > 0) {
			Assert.state(connectionFactory instanceof LettuceConnectionFactory,
					() -> "redq.durability.replicas needs the Lettuce client: " + connectionFactory.getClass().getName()
							+ " cannot send WAIT");
		}
		this.connectionFactory = (replicas > 0) ? (LettuceConnectionFactory) connectionFactory : null;
		this.replicas = replicas;
		this.timeout = timeout;
	}

	/**
	 * Return whether writes wait for replicas.
	 * @return whether at least one replica must confirm each write
	 */
	boolean isEnabled() {
		return this.replicas > 0;
	}

	/**
	 * Return how long a write may take longer for the wait for replicas.
	 * @return the timeout of the wait, or zero when writes wait for no replica
	 */
	Duration longestWait() {
		return isEnabled() ? this.timeout : Duration.ZERO;
	}

	/**
	 * Run a script that writes and returns a list and then, when it wrote, wait for the
	 * replicas.
	 * @param redis the template that runs the script when no replica is waited for
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param wrote whether the script's result says it wrote something to wait for
	 * @param written what the script wrote, for the message of the exception
	 * @return what the script returned
	 * @throws ReplicationTimeoutException when fewer replicas confirmed the write within
	 * the timeout; the write stays on the master
	 */
	@SuppressWarnings("rawtypes")
	public @Nullable List<?> write(StringRedisTemplate redis, RedisScript<List> script, List<String> keys,
			List<String> args, Predicate<List<?>> wrote, String written) {
		if (!isEnabled()) {
			return redis.execute(script, keys, args.toArray());
		}
		try {
			return writeAsync(script, keys, args, wrote, written).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Run a script that writes and returns a list on a connection of its own and then,
	 * when it wrote, wait for the replicas on that connection, without blocking.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @param wrote whether the script's result says it wrote something to wait for
	 * @param written what the script wrote, for the message of the exception
	 * @return what the script returned, once the replicas confirmed it; or the failure, a
	 * {@link ReplicationTimeoutException} when fewer replicas confirmed the write within
	 * the timeout
	 */
	CompletableFuture<List<?>> writeAsync(RedisScript<?> script, List<String> keys, List<String> args,
			Predicate<List<?>> wrote, String written) {
		Assert.state(isEnabled(), "No replica to wait for");
		StatefulConnection<byte[], byte[]> connection = take();
		CompletableFuture<List<?>> result;
		try {
			if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
				Assert.isTrue(!keys.isEmpty(), "A script that waits for replicas on a Redis Cluster needs a key");
				int slot = SlotHash.getSlot(keys.get(0));
				result = ScriptRefusals.retriedAsync(() -> master(cluster, slot)
					.thenCompose((master) -> writeAndWait(master.async(), false, script, keys, args, wrote, written))
					.exceptionallyCompose((ex) -> ScriptRefusals.isRefusal(ex) ? refreshTopology(ex)
							: CompletableFuture.failedFuture(ex)));
			}
			else {
				result = writeAndWait(((StatefulRedisConnection<byte[], byte[]>) connection).async(), true, script,
						keys, args, wrote, written);
			}
		}
		catch (RuntimeException ex) {
			giveBack(connection);
			throw ex;
		}
		result.whenComplete((list, ex) -> giveBack(connection));
		return result;
	}

	private CompletableFuture<List<?>> writeAndWait(RedisAsyncCommands<byte[], byte[]> commands, boolean retried,
			RedisScript<?> script, List<String> keys, List<String> args, Predicate<List<?>> wrote, String written) {
		CompletableFuture<List<?>> reply = retried ? AsyncScripts.run(commands, script, keys, args)
				: AsyncScripts.runOnce(commands, script, keys, args);
		return reply.thenCompose((list) -> wrote.test(list) ? waitForReplicas(commands, list, written)
				: CompletableFuture.completedFuture(list));
	}

	/**
	 * The connection to the master that serves a slot, as the client last read the
	 * topology.
	 */
	private static CompletableFuture<StatefulRedisConnection<byte[], byte[]>> master(
			StatefulRedisClusterConnection<byte[], byte[]> cluster, int slot) {
		RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
		if (master == null) {
			return CompletableFuture.failedFuture(new IllegalStateException("No master of the Redis Cluster serves "
					+ "slot " + slot + " in the topology that Lettuce last read: check CLUSTER SHARDS"));
		}
		return cluster.getConnectionAsync(master.getNodeId());
	}

	/**
	 * Read the Cluster's topology again after a node refused a script, so that the next
	 * try goes to the slot's master now; then fail with the refusal.
	 */
	private <T> CompletableFuture<T> refreshTopology(Throwable refusal) {
		Assert.state(this.connectionFactory != null, "No connection factory");
		return ((RedisClusterClient) this.connectionFactory.getRequiredNativeClient()).refreshPartitionsAsync()
			.handle((refreshed, ex) -> refusal)
			.thenCompose(CompletableFuture::<T>failedFuture)
			.toCompletableFuture();
	}

	private CompletableFuture<List<?>> waitForReplicas(RedisAsyncCommands<byte[], byte[]> commands, List<?> list,
			String written) {
		return commands.waitForReplication(this.replicas, this.timeout.toMillis())
			.toCompletableFuture()
			.handle((confirmed, ex) -> {
				if (ex != null) {
					throw AsyncScripts.translated((ex instanceof CompletionException) ? ex.getCause() : ex);
				}
				if (confirmed == null || confirmed < this.replicas) {
					long count = (confirmed != null) ? confirmed : 0;
					throw new Unconfirmed(this.replicas, count,
							"Redis took " + written + ", but only " + count + " of the " + this.replicas
									+ " replicas required (redq.durability.replicas) confirmed it within "
									+ this.timeout.toMillis() + "ms: it is on the master, and a failover before the "
									+ "replicas catch up would lose it. Check the replicas' link (INFO replication).",
							list);
				}
				return list;
			});
	}

	private StatefulConnection<byte[], byte[]> take() {
		StatefulConnection<byte[], byte[]> connection = this.idle.pollFirst();
		if (connection != null) {
			return connection;
		}
		Assert.state(this.connectionFactory != null, "No connection factory");
		if (this.connectionFactory.getNativeClient() == null) {
			// the factory creates its client as it starts, which its first connection
			// does
			this.connectionFactory.getConnection().close();
		}
		AbstractRedisClient client = this.connectionFactory.getRequiredNativeClient();
		if (client instanceof RedisClusterClient cluster) {
			return cluster.connect(ByteArrayCodec.INSTANCE);
		}
		Assert.state(client instanceof RedisClient, () -> "redq.durability.replicas needs a standalone, "
				+ "Sentinel-managed or Cluster Redis; the Lettuce client is a " + client.getClass().getName());
		return ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
	}

	private void giveBack(StatefulConnection<byte[], byte[]> connection) {
		if (connection.isOpen() && this.idle.size() < MAX_IDLE_CONNECTIONS) {
			this.idle.addFirst(connection);
		}
		else {
			connection.closeAsync();
		}
	}

	/**
	 * A {@link ReplicationTimeoutException} of a script that ran on the master, with its
	 * reply, so that the caller still reports what the script did (the jobs a dispatch
	 * enqueued, the chain steps an acknowledgement created) although the replicas did not
	 * confirm it.
	 */
	static final class Unconfirmed extends ReplicationTimeoutException {

		private final transient List<?> reply;

		Unconfirmed(int required, long confirmed, String message, List<?> reply) {
			super(required, confirmed, message);
			this.reply = reply;
		}

		List<?> getReply() {
			return this.reply;
		}

	}

}
