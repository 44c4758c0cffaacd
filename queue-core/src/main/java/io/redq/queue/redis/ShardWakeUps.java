package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.KeyValue;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * The wait of an idle container for a wake-up on any shard of a sharded queue, on the
 * container's wake-up connection (Lettuce). A wake-up key of each shard lives in the
 * shard's slot: one {@code BZPOPMIN} of every key on a single Redis, one per shard on a
 * Redis Cluster, where each goes to its shard's master. A wait that did not end when
 * another did stays pending for the next wait, so that no wake-up it takes is lost.
 * Closing the connection (a container's stop) ends the wait.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardWakeUps {

	private final QueueStore store;

	private final RedisConnection connection;

	private final Map<String, CompletableFuture<?>> pending = new HashMap<>();

	ShardWakeUps(QueueStore store, RedisConnection connection) {
		this.store = store;
		this.connection = connection;
	}

	/**
	 * Wait until a shard is woken or the time passes.
	 * @param shards the queue's shards
	 * @param millis how long to wait at most
	 * @return the shards whose wake-up ended the wait, none when the time passed
	 */
	synchronized List<String> await(List<String> shards, long millis) {
		send(shards, millis);
		try {
			CompletableFuture.anyOf(this.pending.values().toArray(new CompletableFuture<?>[0]))
				.get(millis + 1000, TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			this.pending.clear();
			throw AsyncScripts.translated(ex.getCause());
		}
		catch (TimeoutException ex) {
			// the connection stalled: the next wait sends again
			this.pending.clear();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		List<String> woken = new ArrayList<>();
		this.pending.entrySet().removeIf((wait) -> {
			if (!wait.getValue().isDone()) {
				return false;
			}
			if (woke(wait.getKey(), wait.getValue())) {
				woken.add(wait.getKey());
			}
			return true;
		});
		return woken;
	}

	/**
	 * Return whether a finished wait took a wake-up of a shard: on a single Redis, one
	 * wait for every shard says which key it popped.
	 */
	private boolean woke(String shard, CompletableFuture<?> wait) {
		Object popped = wait.isCompletedExceptionally() ? null : wait.getNow(null);
		return popped instanceof KeyValue<?, ?> value && value.hasValue() && value.getKey() instanceof byte[] key
				&& Arrays.equals(key, wake(shard));
	}

	@SuppressWarnings("unchecked")
	private void send(List<String> shards, long millis) {
		List<String> idle = new ArrayList<>();
		for (String shard : shards) {
			if (!this.pending.containsKey(shard)) {
				idle.add(shard);
			}
		}
		if (idle.isEmpty()) {
			return;
		}
		double seconds = millis / 1000.0;
		// in a pipeline, Spring Data Redis gives the connection's own native connection,
		// never the shared one that a blocking command would stall
		this.connection.openPipeline();
		try {
			Object commands = this.connection.getNativeConnection();
			if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
				for (String shard : idle) {
					this.pending.put(shard,
							((RedisAdvancedClusterAsyncCommands<byte[], byte[]>) cluster).bzpopmin(seconds, wake(shard))
								.toCompletableFuture());
				}
				cluster.getStatefulConnection().flushCommands();
			}
			else {
				RedisAsyncCommands<byte[], byte[]> single = (RedisAsyncCommands<byte[], byte[]>) commands;
				byte[][] keys = new byte[idle.size()][];
				for (int i = 0; i < keys.length; i++) {
					keys[i] = wake(idle.get(i));
				}
				CompletableFuture<?> wait = single.bzpopmin(seconds, keys).toCompletableFuture();
				idle.forEach((shard) -> this.pending.put(shard, wait));
				single.getStatefulConnection().flushCommands();
			}
		}
		finally {
			this.connection.closePipeline();
		}
	}

	private byte[] wake(String shard) {
		return this.store.keys(shard).wake().getBytes(StandardCharsets.UTF_8);
	}

}
