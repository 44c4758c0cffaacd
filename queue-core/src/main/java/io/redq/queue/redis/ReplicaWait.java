package io.redq.queue.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.redq.queue.core.ReplicationTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * How many replicas must have a write before it counts as done: after the write, Redis
 * {@code WAIT} on the connection it ran on ({@code WAIT} counts the writes of its own
 * connection). Standalone and Sentinel-managed Redis on Lettuce only.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class ReplicaWait {

	/** Waits for no replica: writes are done when the master has them. */
	public static final ReplicaWait NONE = new ReplicaWait();

	/** How long past its own timeout a WAIT's reply may take to arrive. */
	private static final long REPLY_MARGIN_MILLIS = 5000;

	private final int replicas;

	private final Duration timeout;

	private ReplicaWait() {
		this.replicas = 0;
		this.timeout = Duration.ofSeconds(1);
	}

	/**
	 * Create an instance.
	 * @param connectionFactory the factory of the connections the writes run on
	 * @param replicas the replicas that must confirm each write, 0 for none
	 * @param timeout the longest wait for them
	 * @throws IllegalStateException when replicas are to be waited for on a Redis
	 * Cluster, or with another client than Lettuce
	 */
	public ReplicaWait(RedisConnectionFactory connectionFactory, int replicas, Duration timeout) {
		Assert.isTrue(replicas >= 0, "replicas must not be negative");
		Assert.isTrue(timeout.toMillis() > 0, "timeout must be at least 1ms: WAIT 0 would wait forever");
		if (replicas > 0) {
			Assert.state(connectionFactory instanceof LettuceConnectionFactory,
					() -> "redq.durability.replicas needs the Lettuce client: " + connectionFactory.getClass().getName()
							+ " cannot send WAIT");
			Assert.state(!((LettuceConnectionFactory) connectionFactory).isClusterAware(),
					"redq.durability.replicas is not supported on a Redis Cluster yet: set it to 0, or use a "
							+ "standalone or Sentinel-managed Redis");
		}
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
	 * Run a write and then, when it wrote, wait for the replicas, on one connection.
	 * @param <T> the result type
	 * @param redis the template
	 * @param write the write
	 * @param wrote whether the write's result says it wrote something to wait for
	 * @param written what the write wrote, for the message of the exception
	 * @return what the write returned
	 * @throws ReplicationTimeoutException when fewer replicas confirmed the write within
	 * the timeout; the write stays on the master
	 */
	public <T> @Nullable T write(StringRedisTemplate redis, Function<RedisOperations<String, String>, T> write,
			Predicate<@Nullable T> wrote, String written) {
		if (this.replicas == 0) {
			return write.apply(redis);
		}
		long[] confirmed = { this.replicas };
		T result = redis.execute(new SessionCallback<T>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> T execute(RedisOperations<K, V> operations) {
				RedisOperations<String, String> session = (RedisOperations<String, String>) operations;
				T result = write.apply(session);
				if (wrote.test(result)) {
					Long waited = session.execute((RedisCallback<Long>) ReplicaWait.this::waitForReplicas);
					confirmed[0] = (waited != null) ? waited : 0;
				}
				return result;
			}

		});
		if (confirmed[0] < this.replicas) {
			throw new ReplicationTimeoutException(this.replicas, confirmed[0],
					"Redis took " + written + ", but only " + confirmed[0] + " of the " + this.replicas
							+ " replicas required (redq.durability.replicas) confirmed it within "
							+ this.timeout.toMillis() + "ms: it is on the master, and a failover before the "
							+ "replicas catch up would lose it. Check the replicas' link (INFO replication).");
		}
		return result;
	}

	// Spring Data Redis has no WAIT; Lettuce sends it on the connection the write ran on
	private Long waitForReplicas(RedisConnection connection) {
		RedisAsyncCommands<?, ?> client = (RedisAsyncCommands<?, ?>) connection.getNativeConnection();
		long timeoutMillis = this.timeout.toMillis();
		return LettuceFutures.awaitOrCancel(client.waitForReplication(this.replicas, timeoutMillis),
				timeoutMillis + REPLY_MARGIN_MILLIS, TimeUnit.MILLISECONDS);
	}

}
