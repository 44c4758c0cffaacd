package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Calls sent to Redis without blocking, and the waits for their replies that end at the
 * caller's timeout rather than at Lettuce's command timeout.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class AsyncCalls {

	private final StringRedisTemplate redis;

	AsyncCalls(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Send a call on a connection without blocking when it is Lettuce's, else run it
	 * before returning.
	 * @param <T> the result type
	 * @param lettuce the call on Lettuce's commands
	 * @param blocking the same call on the template
	 * @return the reply
	 */
	<T> CompletableFuture<T> run(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> lettuce,
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
	 * Wait for a read's reply.
	 * @param <T> the result type
	 * @param reply the reply
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param what what the read does, for the messages of its failures: e.g.
	 * {@code "read the shards of queue 'mail'"}
	 * @return the reply
	 * @throws QueryTimeoutException when the reply did not come within the timeout
	 */
	static <T> T await(CompletableFuture<T> reply, @Nullable Duration timeout, String what) {
		return await(reply, timeout, () -> timedOut(timeout, what), what);
	}

	private static QueryTimeoutException timedOut(Duration timeout, String what) {
		return new QueryTimeoutException("Redis did not answer within " + timeout.toMillis() + " ms when asked to "
				+ what + ": it is down, unreachable or overloaded");
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
	 * Wait for the replies of reads sent at once, in order, all within one timeout.
	 * @param <T> the result type
	 * @param replies the replies
	 * @param timeout the longest wait for them together, or {@code null} for Lettuce's
	 * command timeout
	 * @param what what the read of each reply's index does, for the messages of its
	 * failures
	 * @return the replies
	 * @throws QueryTimeoutException when a reply did not come within the timeout, named
	 * by its {@code what}
	 */
	static <T> List<T> all(List<CompletableFuture<T>> replies, @Nullable Duration timeout, IntFunction<String> what) {
		long deadline = System.nanoTime() + ((timeout != null) ? timeout.toNanos() : 0);
		List<T> all = new ArrayList<>(replies.size());
		for (int i = 0; i < replies.size(); i++) {
			String read = what.apply(i);
			Duration left = left(timeout, deadline);
			all.add(await(replies.get(i), left, () -> timedOut(timeout, read), read));
		}
		return all;
	}

	/**
	 * Wait for the replies of reads sent at once, in order, until one is accepted, all
	 * within one timeout: a reply after the accepted one is not waited for.
	 * @param <T> the result type
	 * @param replies the replies, in the order they are looked at
	 * @param accepted whether a reply ends the wait
	 * @param timeout the longest wait for them together, or {@code null} for Lettuce's
	 * command timeout
	 * @param what what the reads do, for the messages of their failures
	 * @return the index of the first reply accepted, or -1 when none was
	 * @throws QueryTimeoutException when a reply looked at did not come within the
	 * timeout
	 */
	static <T> int firstAccepted(List<CompletableFuture<T>> replies, Predicate<T> accepted, @Nullable Duration timeout,
			String what) {
		long deadline = System.nanoTime() + ((timeout != null) ? timeout.toNanos() : 0);
		for (int i = 0; i < replies.size(); i++) {
			Duration left = left(timeout, deadline);
			T reply = await(replies.get(i), left, () -> timedOut(timeout, what), what);
			if (accepted.test(reply)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Make a change in every shard of a queue at once, each shard's on a thread of its
	 * own, and wait for all of them within one timeout; a queue of one shard changes on
	 * the caller's thread, within Lettuce's command timeout. Only for changes that are
	 * harmless when made again, since a caller that timed out repeats them.
	 * @param <T> the result type
	 * @param queue the queue
	 * @param shards its shards
	 * @param change the change of one shard
	 * @param timeout the longest wait for them together, or {@code null} for Lettuce's
	 * command timeout
	 * @param what what the change does, for the messages of its failures: e.g.
	 * {@code "pause"}
	 * @return the results, in the order of the shards
	 * @throws QueryTimeoutException when a shard did not answer within the timeout,
	 * naming the shards that did not
	 */
	static <T> List<T> onEveryShard(String queue, List<String> shards, Function<String, T> change,
			@Nullable Duration timeout, String what) {
		if (shards.size() == 1 || timeout == null) {
			return shards.stream().map(change).toList();
		}
		List<CompletableFuture<T>> replies = shards.stream()
			.map((shard) -> onItsOwnThread(() -> change.apply(shard), what + "-" + shard))
			.toList();
		await(CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)), timeout, () -> {
			List<String> silent = new ArrayList<>();
			for (int i = 0; i < shards.size(); i++) {
				if (!replies.get(i).isDone()) {
					silent.add(shards.get(i));
				}
			}
			return new QueryTimeoutException("Redis did not answer within " + timeout.toMillis() + " ms when asked to "
					+ what + " shards " + silent + " of queue '" + queue
					+ "': they are down, unreachable or overloaded. The other shards have it done, and those may "
					+ "still do it before the Redis command timeout (spring.data.redis.timeout); repeating the call "
					+ "is safe once Redis answers");
		}, what + " queue '" + queue + "'");
		return replies.stream().map(CompletableFuture::join).toList();
	}

	/**
	 * Make blocking calls on a thread of their own and wait for them within a timeout;
	 * without a timeout, on the caller's thread within Lettuce's command timeout.
	 * @param <T> the result type
	 * @param calls the calls
	 * @param timeout the longest wait, or {@code null} for Lettuce's command timeout
	 * @param what what the calls do, for the messages of their failures
	 * @return their result
	 * @throws QueryTimeoutException when they did not end within the timeout; they are
	 * not cancelled
	 */
	static <T> T within(Supplier<T> calls, @Nullable Duration timeout, String what) {
		return (timeout != null) ? await(onItsOwnThread(calls, what), timeout, what) : calls.get();
	}

	// a call to a master that hangs holds its thread until Lettuce's command timeout, not
	// the caller
	private static <T> CompletableFuture<T> onItsOwnThread(Supplier<T> calls, String name) {
		return CompletableFuture.supplyAsync(calls, (task) -> {
			Thread thread = new Thread(task, "redq-" + name);
			thread.setDaemon(true);
			thread.start();
		});
	}

	private static @Nullable Duration left(@Nullable Duration timeout, long deadline) {
		return (timeout != null) ? Duration.ofNanos(Math.max(0, deadline - System.nanoTime())) : null;
	}

}
