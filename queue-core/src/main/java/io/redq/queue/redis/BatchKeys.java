package io.redq.queue.redis;

import java.util.List;

/**
 * The Redis keys of one batch: {@code <prefix>:batch:{<batch id>}:<part>}, under a hash
 * tag of their own, since a batch's members live in queues of any slot (see
 * {@code batch.lua}).
 *
 * @param meta the hash of the batch's state, counts and undelivered callbacks
 * @param pending the set of the ids of the members that have not finished
 * @param dead the list of the members that died, each {@code <queue>\n<id>}
 * @author Redq team
 * @since 0.1.0
 */
public record BatchKeys(String meta, String pending, String dead) {

	/**
	 * Return the keys of a batch.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @param batchId the batch id
	 * @return the keys
	 */
	public static BatchKeys of(String prefix, String batchId) {
		String base = prefix + ":batch:{" + batchId + "}:";
		return new BatchKeys(base + "meta", base + "pending", base + "dead");
	}

	/**
	 * Return the key of the index of the batches: a sorted set of batch ids by creation
	 * time (epoch milliseconds), {@code <prefix>:batch:index}, outside every batch's hash
	 * tag, written when a batch is created and read by the dashboard and the endpoint.
	 * Entries of batches that expired are dropped when read.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @return the key
	 */
	public static String index(String prefix) {
		return prefix + ":batch:index";
	}

	/**
	 * Return the keys in the order {@code batch.lua} takes them.
	 * @return the keys
	 */
	public List<String> all() {
		return List.of(this.meta, this.pending, this.dead);
	}

}
