package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Which shard of a queue a job goes to, and where to look for a job by its id: the shard
 * its key maps to (a stable hash), or the next in turn for a job without one.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardChoice {

	private final StringRedisTemplate redis;

	private final AsyncCalls calls;

	private final QueueShards shards;

	private final Map<String, AtomicInteger> nextShard = new ConcurrentHashMap<>();

	ShardChoice(StringRedisTemplate redis, AsyncCalls calls, QueueShards shards) {
		this.redis = redis;
		this.calls = calls;
		this.shards = shards;
	}

	/**
	 * Return the shard of a queue that a job goes to: the one its key maps to, so that
	 * jobs of one key always share a shard, or the next in turn for a job without one.
	 * @param queue the queue
	 * @param key what keeps the job with related ones (its group or caller-given id), or
	 * {@code null} for none
	 * @return the shard
	 */
	String shardOf(String queue, @Nullable String key) {
		List<String> shards = this.shards.shards(queue);
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
	 * Return the shards to look for a job in by its id as
	 * {@link #shardsOfId(String, String, Duration)} does within Lettuce's command
	 * timeout.
	 * @param queue the queue
	 * @param id the job id
	 * @return the shards, the likeliest first
	 */
	List<String> shardsOfId(String queue, String id) {
		return shardsOfId(queue, id, null);
	}

	/**
	 * Return the shards to look for a job in by its id (see
	 * {@link QueueShards#shardsToOperate}): first the one its id maps to.
	 * @param queue the queue
	 * @param id the job id
	 * @param timeout the longest wait for the stored placement, or {@code null} for
	 * Lettuce's command timeout
	 * @return the shards, the likeliest first
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	List<String> shardsOfId(String queue, String id, @Nullable Duration timeout) {
		List<String> shards = this.shards.shardsToOperate(queue, timeout);
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
	 * Return the shard that holds a job or its result, else the one its id maps to. Every
	 * shard's read is sent at once, so a sharded queue costs one round trip, and the
	 * replies are then looked at the likeliest shard first: a shard that does not answer
	 * matters only when no shard before it holds the job.
	 * @param queue the queue
	 * @param id the job id
	 * @param timeout the longest wait for the placement, and then for the reads, or
	 * {@code null} for Lettuce's command timeout
	 * @return the shard
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	String shardHolding(String queue, String id, @Nullable Duration timeout) {
		List<String> shards = shardsOfId(queue, id, timeout);
		if (shards.size() == 1) {
			return queue;
		}
		int found = AsyncCalls.firstAccepted(shards.stream().map((shard) -> holds(shard, id)).toList(),
				Boolean::booleanValue, timeout, "find the shard of queue '" + queue + "' that holds job '" + id + "'");
		return shards.get(Math.max(0, found));
	}

	/** Send the read of whether a shard holds a job or its result. */
	private CompletableFuture<Boolean> holds(String shard, String id) {
		QueueKeys keys = this.shards.keys(shard);
		byte[] jobs = keys.jobs().getBytes(StandardCharsets.UTF_8);
		byte[] field = id.getBytes(StandardCharsets.UTF_8);
		byte[] result = keys.result(id).getBytes(StandardCharsets.UTF_8);
		return this.calls.run((commands) -> commands.hexists(jobs, field)
			.toCompletableFuture()
			.thenCombine(commands.exists(result).toCompletableFuture(), (inJobs, results) -> inJobs || results > 0),
				() -> this.redis.opsForHash().hasKey(keys.jobs(), id)
						|| Boolean.TRUE.equals(this.redis.hasKey(keys.result(id))));
	}

}
