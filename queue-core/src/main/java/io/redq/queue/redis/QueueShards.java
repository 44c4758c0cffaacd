package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.redq.queue.core.QueueNames;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The shards each queue has, and their keys: how many this instance is told (see
 * {@link ShardPlacement} for their hash tags, stored in Redis), by the names of
 * {@link ShardNames}. Only this package knows shards.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class QueueShards {

	private final StringRedisTemplate redis;

	private final AsyncCalls calls;

	private final Keyspace keyspace;

	private final ShardPlacement placement;

	private final Map<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final Map<String, Integer> shardCounts = new ConcurrentHashMap<>();

	private int defaultShards = 1;

	private final Map<String, Placed> placed = new ConcurrentHashMap<>();

	private final Set<String> served = ConcurrentHashMap.newKeySet();

	QueueShards(StringRedisTemplate redis, AsyncCalls calls, Keyspace keyspace) {
		this.redis = redis;
		this.calls = calls;
		this.keyspace = keyspace;
		this.placement = new ShardPlacement(redis, keyspace);
	}

	/**
	 * Return the keys of a queue, or of one of its shards by its name (see
	 * {@link #shards(String)}).
	 * @param shard the queue or shard name
	 * @return its keys
	 */
	QueueKeys keys(String shard) {
		return this.keys.computeIfAbsent(shard, this::keysOf);
	}

	private QueueKeys keysOf(String shard) {
		int number = ShardNames.numberOf(shard);
		if (number > 0) {
			String queue = ShardNames.queueOf(shard);
			// read once: the names and the tags of an unknown count come from one
			// placement
			List<String> tags = countKnown(queue) ? tags(queue) : this.placement.stored(queue);
			if (number < tags.size()) {
				return this.keyspace.shard(queue, tags.get(number));
			}
		}
		// a queue name, checked: no valid one has a brace
		return this.keyspace.queue(shard);
	}

	/**
	 * Set how many shards a queue has: each its own hash tag, so its own slot, and so
	 * possibly its own Redis Cluster master. Set before the queue is used.
	 * @param queue the queue
	 * @param count the number of shards, at least 1 (the default)
	 */
	void setShards(String queue, int count) {
		Assert.isTrue(count >= 1, () -> "Queue '" + queue + "' needs at least 1 shard, not " + count);
		this.shardCounts.put(QueueNames.validate(queue), count);
	}

	/**
	 * Set how many shards a queue has unless {@link #setShards(String, int)} says
	 * otherwise. Set before the queues are used.
	 * @param count the number of shards, at least 1 (the default)
	 */
	void setDefaultShards(int count) {
		Assert.isTrue(count >= 1, () -> "A queue needs at least 1 shard, not " + count);
		this.defaultShards = count;
	}

	/**
	 * Return how many shards a queue has.
	 * @param queue the queue
	 * @return the number of shards, 1 unless set otherwise
	 */
	int getShards(String queue) {
		return this.shardCounts.getOrDefault(queue, this.defaultShards);
	}

	/**
	 * Return the shards of a queue, by the name every call that takes a queue takes for
	 * one shard (see {@link ShardNames}).
	 * @param queue the queue
	 * @return the shards, one (the queue) unless the queue has more
	 */
	List<String> shards(String queue) {
		return placed(queue).names();
	}

	/**
	 * Return the shards of a queue as {@link #shards(String)} does, without blocking: a
	 * placement not known yet is read from Redis, so that the caller's wait for the
	 * future bounds the read.
	 * @param queue the queue
	 * @return the shards, the queue's own keys first
	 */
	CompletableFuture<List<String>> shardsAsync(String queue) {
		Placed known = this.placed.get(queue);
		if (known != null || getShards(queue) == 1) {
			return ((known != null) ? known : placed(queue)).ready();
		}
		return storedAsync(queue).thenCompose((stored) -> {
			List<String> tags = ShardPlacement.parse(queue, stored);
			if (stored != null && tags.size() == getShards(queue)) {
				this.placed.putIfAbsent(queue, new Placed(queue, tags));
				return CompletableFuture.completedFuture(shards(queue));
			}
			// none stored, or stored for another count: chosen or changed by this
			// instance, as at startup, away from Lettuce's threads
			return CompletableFuture.supplyAsync(() -> shards(queue));
		});
	}

	private List<String> tags(String queue) {
		return placed(queue).tags();
	}

	private Placed placed(String queue) {
		Placed known = this.placed.get(queue);
		// a queue of one shard reads no placement
		return (known != null) ? known : this.placed.computeIfAbsent(queue, (name) -> new Placed(name,
				(getShards(name) == 1) ? List.of(name) : this.placement.tags(name, getShards(name))));
	}

	/**
	 * Return the shards of a queue that hold its jobs, as
	 * {@link #shardsToOperate(String, Duration)} does within Lettuce's command timeout.
	 * @param queue the queue
	 * @return the shards, the queue's own keys first
	 */
	List<String> shardsToOperate(String queue) {
		return shardsToOperate(queue, null);
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
	 * @param timeout the longest wait for the stored placement, or {@code null} for
	 * Lettuce's command timeout
	 * @return the shards, the queue's own keys first
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	List<String> shardsToOperate(String queue, @Nullable Duration timeout) {
		if (countKnown(queue)) {
			return shards(queue);
		}
		String stored = AsyncCalls.await(storedAsync(queue), timeout, "read the shards of queue '" + queue + "'");
		return ShardNames.names(queue, ShardPlacement.parse(queue, stored));
	}

	private CompletableFuture<@Nullable String> storedAsync(String queue) {
		String key = this.keyspace.placement(queue);
		return this.calls.run((commands) -> commands.get(key.getBytes(StandardCharsets.UTF_8))
			.thenApply((value) -> (value != null) ? new String(value, StandardCharsets.UTF_8) : null)
			.toCompletableFuture(), () -> this.redis.opsForValue().get(key));
	}

	private boolean countKnown(String queue) {
		return this.defaultShards > 1 || this.shardCounts.containsKey(queue) || this.served.contains(queue);
	}

	/**
	 * Check that the shards stored for a queue agree with its configured count, as an
	 * instance that starts serving the queue does: a count that would drop a shard that
	 * holds jobs is refused.
	 * @param queue the queue
	 * @throws IllegalStateException when the count would drop a shard that holds jobs
	 */
	void checkShards(String queue) {
		this.placement.tags(queue, getShards(queue));
		this.served.add(queue);
	}

	/** The hash tags of a queue's shards, as this instance uses them, and their names. */
	private record Placed(List<String> tags, List<String> names, CompletableFuture<List<String>> ready) {

		Placed(String queue, List<String> tags) {
			this(List.copyOf(tags), ShardNames.names(queue, tags));
		}

		private Placed(List<String> tags, List<String> names) {
			// one future for every dispatch: the names are known
			this(tags, names, CompletableFuture.completedFuture(names));
		}

	}

}
