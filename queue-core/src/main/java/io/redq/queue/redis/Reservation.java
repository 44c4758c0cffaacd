package io.redq.queue.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The result of reserving jobs.
 *
 * @param redisTime the Redis clock when the jobs were reserved (epoch ms)
 * @param nextDue when the queue's first delayed job is due or its first lease expires
 * (epoch ms, Redis clock), or -1
 * @param jobs the reserved jobs, possibly none
 * @param missing the ready ids whose envelope was missing from the jobs hash (deleted
 * outside Redq): recorded dead instead of reserved
 * @author Redq team
 * @since 0.1.0
 */
public record Reservation(long redisTime, long nextDue, List<ReservedJob> jobs, List<String> missing) {

	/**
	 * Return the reservations from two shards of a queue as one: the jobs of both, the
	 * earlier next due time against the later clock, so that the migrator is never late.
	 * @param other the reservation from the other shard
	 * @return both reservations
	 */
	Reservation and(Reservation other) {
		List<ReservedJob> jobs = new ArrayList<>(this.jobs);
		jobs.addAll(other.jobs);
		List<String> missing = new ArrayList<>(this.missing);
		missing.addAll(other.missing);
		return new Reservation(Math.max(this.redisTime, other.redisTime), earlier(this.nextDue, other.nextDue), jobs,
				missing);
	}

	/**
	 * Return the earlier of two due times, either -1 for none.
	 */
	static long earlier(long due, long other) {
		return (due < 0) ? other : (other < 0) ? due : Math.min(due, other);
	}

}
