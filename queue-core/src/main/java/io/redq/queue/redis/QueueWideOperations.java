package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * The changes of a whole queue, made in every shard at once: pause, resume, purge, and
 * the retry and deletion of dead jobs. Each is harmless when made again, since a caller
 * that timed out repeats it (see {@link AsyncCalls#onEveryShard}).
 *
 * @author Redq team
 * @since 0.1.0
 * @see RedisJobQueueOperations
 */
final class QueueWideOperations {

	private static final int SCAN_BATCH_SIZE = 1000;

	private final QueueStore store;

	private final StringRedisTemplate redis;

	private final QueueScripts scripts;

	QueueWideOperations(QueueStore store) {
		this.store = store;
		this.redis = store.getTemplate();
		this.scripts = store.getScripts();
	}

	/**
	 * Pause a queue.
	 * @see RedisJobQueueOperations#pause(String)
	 */
	void pause(String queue, @Nullable Duration timeout) {
		onEveryShard(queue, (shard) -> {
			this.redis.opsForValue().set(this.store.keys(shard).paused(), "1");
			return null;
		}, "pause", timeout);
	}

	/**
	 * Resume a queue, waking its idle containers.
	 * @see RedisJobQueueOperations#resume(String)
	 */
	void resume(String queue, @Nullable Duration timeout) {
		onEveryShard(queue, (shard) -> {
			QueueKeys keys = this.store.keys(shard);
			this.redis.delete(keys.paused());
			return this.redis.opsForZSet().add(keys.wake(), "w", 0);
		}, "resume", timeout);
	}

	/**
	 * Retry dead jobs, all of them when no ids are given.
	 * @see RedisJobQueueOperations#retryDead(String, Collection)
	 */
	long retryDead(String queue, Collection<String> ids, @Nullable Duration timeout) {
		return revive(queue, "retry", ids, timeout);
	}

	/**
	 * Delete dead jobs, all of them when no ids are given.
	 * @see RedisJobQueueOperations#deleteDead(String, Collection)
	 */
	long deleteDead(String queue, Collection<String> ids, @Nullable Duration timeout) {
		return revive(queue, "delete", ids, timeout);
	}

	/**
	 * Purge a queue.
	 * @see RedisJobQueueOperations#purge(String)
	 */
	void purge(String queue, @Nullable Duration timeout) {
		onEveryShard(queue, (shard) -> {
			purgeShard(shard);
			return null;
		}, "purge", timeout);
	}

	/**
	 * Make a change in every shard of a queue, within the timeout on a sharded queue.
	 */
	private <T> List<T> onEveryShard(String queue, Function<String, T> change, String what,
			@Nullable Duration timeout) {
		return AsyncCalls.onEveryShard(queue, this.store.queueShards().shardsToOperate(queue, timeout), change, timeout,
				what);
	}

	private long revive(String queue, String action, Collection<String> ids, @Nullable Duration timeout) {
		// a job lives in one shard: the others ignore its id
		return onEveryShard(queue, (shard) -> reviveShard(shard, action, ids), action + " dead jobs of", timeout)
			.stream()
			.mapToLong(Long::longValue)
			.sum();
	}

	private long reviveShard(String queue, String action, Collection<String> ids) {
		// without ids, each call takes the oldest 1,000 of the jobs that were dead when
		// this began: those that died at or before the latest death then
		Set<ZSetOperations.TypedTuple<String>> latest = ids.isEmpty()
				? this.redis.opsForZSet().reverseRangeWithScores(this.store.keys(queue).dead(), 0, 0) : Set.of();
		if (ids.isEmpty() && (latest == null || latest.isEmpty())) {
			return 0;
		}
		String cutoff = ids.isEmpty() ? Long.toString(latest.iterator().next().getScore().longValue()) : "0";
		long total = 0;
		while (true) {
			List<String> args = new ArrayList<>(ids.size() + 2);
			args.add(action);
			args.add(cutoff);
			args.addAll(ids);
			Long done = this.store.runOnce(this.scripts.revive(), queue, args, null,
					action + " dead jobs of queue '" + queue + "'");
			total += (done != null) ? done : 0;
			if (!ids.isEmpty() || done == null || done == 0) {
				return total;
			}
		}
	}

	private void purgeShard(String queue) {
		QueueKeys keys = this.store.keys(queue);
		Set<String> fixed = Set.copyOf(keys.all());
		List<String> gates = new ArrayList<>();
		List<String> recurring = new ArrayList<>();
		ScanOptions options = ScanOptions.scanOptions().match(keys.pattern()).count(SCAN_BATCH_SIZE).build();
		this.redis.execute((RedisCallback<@Nullable Void>) (connection) -> {
			try (Cursor<byte[]> cursor = scan(connection, keys, options)) {
				while (cursor.hasNext()) {
					String key = new String(cursor.next(), StandardCharsets.UTF_8);
					if (keys.isRecurring(key)) {
						recurring.add(key);
					}
					else if (!fixed.contains(key) && !keys.isSent(key)) {
						gates.add(key);
					}
				}
			}
			return null;
		});
		List<String> purged = new ArrayList<>(gates);
		purged.addAll(recurring);
		this.store.runOnce(this.scripts.purge(), queue, purged, List.of(Integer.toString(recurring.size())), null,
				"purge queue '" + queue + "'");
	}

	private static Cursor<byte[]> scan(RedisConnection connection, QueueKeys keys, ScanOptions options) {
		if (connection instanceof RedisClusterConnection cluster) {
			// every key of a queue is in its slot: one node holds them all
			return cluster.scan(cluster.clusterGetNodeForKey(keys.ready().getBytes(StandardCharsets.UTF_8)), options);
		}
		return connection.keyCommands().scan(options);
	}

}
