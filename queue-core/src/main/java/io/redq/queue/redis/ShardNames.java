package io.redq.queue.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The names of a queue's shards, by which every call that takes a queue takes one shard:
 * the queue name for the first, whose keys are the queue's own, then
 * <code>&lt;queue&gt;{&lt;n&gt;}</code> (no queue name has a brace); and the lease tokens
 * that carry their shard.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardNames {

	private ShardNames() {
	}

	/**
	 * Return the names of a queue's shards.
	 * @param queue the queue
	 * @param tags the hash tags of its shards, the queue's own first
	 * @return the names, the queue first
	 */
	static List<String> names(String queue, List<String> tags) {
		List<String> names = new ArrayList<>();
		names.add(queue);
		for (int i = 1; i < tags.size(); i++) {
			names.add(queue + "{" + i + "}");
		}
		return List.copyOf(names);
	}

	/**
	 * Return the queue a shard is of, as the callers know it.
	 * @param shard the shard, or a queue name
	 * @return the queue
	 */
	static String queueOf(String shard) {
		int brace = shard.indexOf('{');
		return (brace < 0) ? shard : shard.substring(0, brace);
	}

	/**
	 * Return the number of a shard, from 0 for the queue's own.
	 * @param shard the shard, or a queue name
	 * @return its number, or -1 when the name is not a shard's
	 */
	static int numberOf(String shard) {
		int brace = shard.indexOf('{');
		if (brace < 0) {
			return 0;
		}
		String number = shard.substring(brace + 1, shard.length() - 1);
		return (brace > 0 && shard.endsWith("}") && !number.isEmpty() && number.length() < 10
				&& number.chars().allMatch(Character::isDigit)) ? Integer.parseInt(number) : -1;
	}

	/**
	 * Return the shard a reservation's lease token came from (see
	 * {@link #shardToken(String, String)}).
	 * @param queue the queue
	 * @param token the lease token
	 * @return the shard
	 */
	static String shardOfToken(String queue, String token) {
		int slash = token.indexOf('/');
		return (slash < 0) ? queue : queue + "{" + token.substring(0, slash) + "}";
	}

	/**
	 * Return a lease as its shard's scripts know it, without the shard in its token.
	 * @param lease the lease
	 * @return the lease in its shard
	 */
	static Lease inShard(Lease lease) {
		int slash = lease.token().indexOf('/');
		return (slash < 0) ? lease : new Lease(lease.id(), lease.token().substring(slash + 1));
	}

	/**
	 * Return the token of a lease as the callers see it: a shard other than the first
	 * puts its number in front, so that a later call finds the shard and no two shards'
	 * tokens are equal.
	 * @param shard the shard that gave the lease
	 * @param token its token there
	 * @return the token
	 */
	static String shardToken(String shard, String token) {
		int brace = shard.indexOf('{');
		return (brace < 0) ? token : shard.substring(brace + 1, shard.length() - 1) + "/" + token;
	}

}
