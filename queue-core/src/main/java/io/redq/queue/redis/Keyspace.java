package io.redq.queue.redis;

import java.util.List;

import io.redq.queue.core.QueueNames;
import org.jspecify.annotations.Nullable;

/**
 * The Redis keys Redq uses under one key prefix, every family of them named here and
 * nowhere else: a logical queue's keys and its hash tag (so its Redis Cluster slot), and
 * the keys of batches, of the instance registry, of locks and of the dashboard's log.
 * Built once from the prefix; the classes that reach Redis take it instead of the prefix.
 * <p>
 * A queue's keys are {@code <prefix>:{<queue>}:<part>} (see {@link QueueKeys}); the other
 * families never start with <code>&lt;prefix&gt;:{</code>, so no queue name shares a key
 * with them.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class Keyspace {

	private static final String MODEL_SUFFIX = "}:model";

	private final String prefix;

	/**
	 * Create the keyspace of a key prefix.
	 * @param prefix the prefix of every key, e.g. {@code redq}, checked by
	 * {@link QueueNames#validateKeyPrefix(String)}
	 */
	public Keyspace(String prefix) {
		this.prefix = QueueNames.validateKeyPrefix(prefix);
	}

	/**
	 * Return the keys of a logical queue.
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}
	 * @return its keys
	 */
	public QueueKeys queue(String queue) {
		return QueueKeys.of(this.prefix, QueueNames.validate(queue));
	}

	/**
	 * Return the keys of a shard of a logical queue.
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}
	 * @param tag the shard's hash tag without its braces: the queue name for its first
	 * shard, which has the queue's own keys
	 * @return the shard's keys
	 */
	QueueKeys shard(String queue, String tag) {
		return tag.equals(QueueNames.validate(queue)) ? queue(queue) : QueueKeys.ofShard(this.prefix, tag);
	}

	/**
	 * Return the key of a sharded queue's placement: the hash tags of its shards, in
	 * order, chosen once by the first instance that used the queue (see
	 * {@link ShardPlacement}).
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}
	 * @return the key
	 */
	public String placement(String queue) {
		return this.prefix + ":placement:{" + QueueNames.validate(queue) + "}";
	}

	/**
	 * Return the hash tag that every key of a queue shares, which chooses its Redis
	 * Cluster slot.
	 * @param queue the queue name, checked by {@link QueueNames#validate(String)}
	 * @return the hash tag, e.g. <code>{mail}</code>
	 */
	public String hashTag(String queue) {
		return "{" + QueueNames.validate(queue) + "}";
	}

	/**
	 * Return the keys of a batch, under a hash tag of their own.
	 * @param batchId the batch id
	 * @return its keys
	 */
	public BatchKeys batch(String batchId) {
		return BatchKeys.of(this.prefix, batchId);
	}

	/**
	 * Return the key of the index of the batches: a sorted set of batch ids by creation
	 * time (epoch milliseconds), {@code <prefix>:batch:index}, outside every batch's hash
	 * tag, written when a batch is created and read by the dashboard and the endpoint.
	 * Entries of batches that expired are dropped when read.
	 * @return the key
	 */
	public String batchIndex() {
		return this.prefix + ":batch:index";
	}

	/**
	 * Return the key of a chain: {@code <prefix>:chain:{<chain id>}:meta}, under a hash
	 * tag of its own, since a chain's steps live in queues of any slot (see
	 * {@code chain.lua}).
	 * @param chainId the chain id
	 * @return its key
	 */
	public String chain(String chainId) {
		return this.prefix + ":chain:{" + chainId + "}:meta";
	}

	/**
	 * Return the key of the index of the chains: a sorted set of chain ids by creation
	 * time (epoch milliseconds), {@code <prefix>:chain:index}, outside every chain's hash
	 * tag, written when a chain is created and read by the dashboard and the endpoint.
	 * Entries of chains that expired are dropped when read.
	 * @return the key
	 */
	public String chainIndex() {
		return this.prefix + ":chain:index";
	}

	/**
	 * Return the sorted set of the live instances' ids by the time each expires.
	 * @return the key
	 */
	public String instanceIndex() {
		return instances() + "index";
	}

	/**
	 * Return the key of one instance's latest heartbeat and description, in the slot of
	 * {@link #instanceIndex()}.
	 * @param id the instance id
	 * @return the key
	 */
	public String instance(String id) {
		return instances() + "instance:" + id;
	}

	private String instances() {
		return this.prefix + ":registry:{instances}:";
	}

	/**
	 * Return the keys of a lock: the current owner's token, then the last fencing token,
	 * both in the lock's own slot.
	 * @param name the lock name, checked by
	 * {@link QueueNames#validateName(String, String)}
	 * @return the keys
	 */
	public List<String> lock(String name) {
		String owner = this.prefix + ":lock:{" + QueueNames.validateName("lock", name) + "}";
		return List.of(owner, owner + ":fence");
	}

	/**
	 * Return the list of the dashboard's latest actions.
	 * @return the key
	 */
	public String dashboardActions() {
		return this.prefix + ":dashboard:actions";
	}

	/**
	 * Return the {@code SCAN} pattern that matches every queue's model key, which every
	 * script writes, so each queue ever used has one, and the model keys of the shards of
	 * a sharded queue, so that a queue whose jobs all live in a later shard is found too
	 * (see {@link #queueOfModelKey}).
	 * @return the pattern
	 */
	public String queueModelPattern() {
		return escapeGlob(this.prefix) + ":*{*" + MODEL_SUFFIX;
	}

	/**
	 * Return the queue whose model key, or whose shard's model key, this is.
	 * @param key a key that {@link #queueModelPattern()} matched
	 * @return the queue name, or {@code null} when the key is no valid queue's or shard's
	 * model key
	 */
	public @Nullable String queueOfModelKey(String key) {
		if (!key.endsWith(MODEL_SUFFIX)) {
			return null;
		}
		String queue = tagAfter(key, this.prefix + ":{");
		if (queue == null) {
			// a shard's tag is <queue>#<n> (see ShardPlacement)
			String tag = tagAfter(key, this.prefix + ":shard:{");
			int hash = (tag != null) ? tag.lastIndexOf('#') : -1;
			if (hash <= 0 || hash == tag.length() - 1
					|| !tag.substring(hash + 1).chars().allMatch(Character::isDigit)) {
				return null;
			}
			queue = tag.substring(0, hash);
		}
		try {
			return QueueNames.validate(queue);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static @Nullable String tagAfter(String key, String start) {
		return (key.startsWith(start) && key.length() > start.length() + MODEL_SUFFIX.length())
				? key.substring(start.length(), key.length() - MODEL_SUFFIX.length()) : null;
	}

	/**
	 * Return the {@code SCAN} pattern that matches every key under the prefix, of every
	 * family.
	 * @return the pattern
	 */
	public String pattern() {
		return escapeGlob(this.prefix) + ":*";
	}

	/**
	 * Escape the characters that a {@code SCAN} or {@code KEYS} pattern gives a meaning.
	 * @param text the text to match as it is
	 * @return the escaped text
	 */
	public static String escapeGlob(String text) {
		return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
	}

	@Override
	public String toString() {
		return "Keyspace '" + this.prefix + "'";
	}

}
