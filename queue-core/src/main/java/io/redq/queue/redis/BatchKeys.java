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
 * @param succeeded the list of the members that succeeded, likewise
 * @author Redq team
 * @since 0.1.0
 */
public record BatchKeys(String meta, String pending, String dead, String succeeded) {

	/**
	 * Return the keys of a batch.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @param batchId the batch id
	 * @return the keys
	 */
	public static BatchKeys of(String prefix, String batchId) {
		String base = prefix + ":batch:{" + batchId + "}:";
		return new BatchKeys(base + "meta", base + "pending", base + "dead", base + "succeeded");
	}

	/**
	 * Return the keys in the order {@code batch.lua} takes them.
	 * @return the keys
	 */
	public List<String> all() {
		return List.of(this.meta, this.pending, this.dead, this.succeeded);
	}

}
