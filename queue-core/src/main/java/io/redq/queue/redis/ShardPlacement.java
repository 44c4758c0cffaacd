package io.redq.queue.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The hash tags of a sharded queue's shards, kept in Redis under
 * {@link Keyspace#placement(String)} so that every instance uses the same ones. The first
 * shard's tag is the queue name, so that its keys are the queue's own; each other shard's
 * is {@code <queue>#<n>}, the first such tag whose slot's master has no shard yet (until
 * every master has one, then again), so that the shards land on different masters of a
 * Redis Cluster as it is when they are chosen. The first instance to use the queue
 * chooses and stores them ({@code SET NX}); the others read them back. A later change of
 * the cluster's slots moves a shard with its slot: still correct, maybe less spread.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardPlacement {

	/** How many tags of a queue are tried for a master without a shard. */
	private static final int MAX_TRIES = 1000;

	private final StringRedisTemplate redis;

	private final Keyspace keyspace;

	ShardPlacement(StringRedisTemplate redis, Keyspace keyspace) {
		this.redis = redis;
		this.keyspace = keyspace;
	}

	/**
	 * Return the tags of a queue's shards: the stored ones, or new ones stored first when
	 * there are none. A count changed since they were stored changes them, unless a shard
	 * it removes still holds jobs.
	 * @param queue the queue
	 * @param count the configured number of shards
	 * @return the tags, the first the queue name
	 * @throws IllegalStateException when fewer shards are configured than stored and a
	 * shard it would remove holds jobs
	 */
	List<String> tags(String queue, int count) {
		String key = this.keyspace.placement(queue);
		String stored = this.redis.opsForValue().get(key);
		if (stored == null) {
			if (count == 1) {
				return List.of(queue);
			}
			// the first writer wins: every instance reads back the same tags
			this.redis.opsForValue().setIfAbsent(key, String.join("\n", choose(queue, count, List.of(queue))));
			stored = this.redis.opsForValue().get(key);
		}
		List<String> tags = parse(queue, stored);
		if (tags.size() == count) {
			return tags;
		}
		List<String> changed;
		if (tags.size() > count) {
			for (String removed : tags.subList(count, tags.size())) {
				if (holdsJobs(queue, removed)) {
					throw new IllegalStateException("Queue '" + queue + "' is configured with " + count
							+ " shard(s) but has " + tags.size() + " in Redis, and shard '" + removed
							+ "' still holds jobs, which fewer shards would never run. Drain the queue with "
							+ "redq.queues." + queue + ".shards=" + tags.size()
							+ " (stop dispatching and let the workers finish its jobs, dead jobs included), "
							+ "then lower the count");
				}
			}
			changed = tags.subList(0, count);
		}
		else {
			changed = choose(queue, count, tags);
		}
		if (count == 1) {
			this.redis.delete(key);
		}
		else {
			this.redis.opsForValue().set(key, String.join("\n", changed));
		}
		return List.copyOf(changed);
	}

	/**
	 * Return the tags stored for a queue, read only: for an instance that does not know
	 * the queue's shard count, and so must neither choose nor change them.
	 * @param queue the queue
	 * @return the stored tags, or the queue name alone when none are stored
	 */
	List<String> stored(String queue) {
		return parse(queue, this.redis.opsForValue().get(this.keyspace.placement(queue)));
	}

	/**
	 * Return the hash tags of a stored placement.
	 * @param queue the queue
	 * @param stored the stored placement, or {@code null} for none
	 * @return the tags, the queue's own alone without a placement
	 */
	static List<String> parse(String queue, @Nullable String stored) {
		return (stored != null) ? Arrays.asList(stored.split("\n")) : List.of(queue);
	}

	private boolean holdsJobs(String queue, String tag) {
		// every job that lives, ready, delayed, running, parked or dead, has its envelope
		return Boolean.TRUE.equals(this.redis.hasKey(this.keyspace.shard(queue, tag).jobs()));
	}

	private List<String> choose(String queue, int count, List<String> kept) {
		List<RedisClusterNode> masters = masters();
		List<String> tags = new ArrayList<>(kept);
		Set<String> used = new HashSet<>();
		tags.forEach((tag) -> used.add(owner(masters, tag)));
		for (int n = 1; tags.size() < count; n++) {
			String tag = queue + "#" + n;
			if (tags.contains(tag)) {
				continue;
			}
			if (used.size() >= Math.max(1, masters.size())) {
				// every master has a shard: spread the next ones over them again
				used.clear();
			}
			if (used.add(owner(masters, tag)) || n > MAX_TRIES) {
				tags.add(tag);
			}
		}
		return tags;
	}

	private List<RedisClusterNode> masters() {
		List<RedisClusterNode> masters = this.redis.execute((RedisCallback<List<RedisClusterNode>>) (connection) -> {
			List<RedisClusterNode> nodes = new ArrayList<>();
			if (connection instanceof RedisClusterConnection cluster) {
				cluster.clusterGetNodes().forEach((node) -> {
					if (node.isMaster() && node.getSlotRange().getSlots().size() > 0) {
						nodes.add(node);
					}
				});
			}
			return nodes;
		});
		return (masters != null) ? masters : List.of();
	}

	/** Return the id of the master that holds a tag's slot, "" without a cluster. */
	private static String owner(List<RedisClusterNode> masters, String tag) {
		int slot = ClusterSlotHashUtil.calculateSlot("{" + tag + "}");
		for (RedisClusterNode master : masters) {
			if (master.getSlotRange().contains(slot)) {
				return String.valueOf(master.getId());
			}
		}
		return "";
	}

}
