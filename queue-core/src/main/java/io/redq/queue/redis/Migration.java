package io.redq.queue.redis;

/**
 * The result of one migrator pass over a queue.
 *
 * @param redisTime the Redis clock during the pass (epoch ms)
 * @param dueJobs how many due delayed jobs were made ready
 * @param expiredLeases how many jobs whose lease expired were recovered (to ready or
 * dead)
 * @param nextDue when the next delayed job is due (a job parked behind a limit is due at
 * no time), the next lease or hold of a limit expires or the next dead job passes its age
 * limit (epoch ms, Redis clock), or -1; at once while a queue upgraded from data model 6
 * still keeps parked jobs in its delayed set, which each pass takes a batch of out
 * @param trimmedDeadJobs how many dead jobs past the age limit or beyond the size limit
 * were deleted
 * @param handOvers whether completions of batch members wait to be handed over to their
 * batches (see {@link ListenerOperations#handOver(String)})
 * @author Redq team
 * @since 0.1.0
 */
public record Migration(long redisTime, int dueJobs, int expiredLeases, long nextDue, int trimmedDeadJobs,
		boolean handOvers) {

	/**
	 * Whether the pass hit its batch limit, so that another pass should follow at once.
	 * @param limit the batch limit of the pass
	 * @return whether more work may be waiting
	 */
	public boolean isPartial(int limit) {
		return this.dueJobs >= limit || this.expiredLeases >= limit || this.trimmedDeadJobs >= limit;
	}

	/**
	 * Return the passes over two shards of a queue as one: the counts added up, the
	 * earlier next due time against the later clock, so that the next pass is never late.
	 * @param other the pass over the other shard
	 * @return both passes
	 */
	Migration and(Migration other) {
		return new Migration(Math.max(this.redisTime, other.redisTime), this.dueJobs + other.dueJobs,
				this.expiredLeases + other.expiredLeases, Reservation.earlier(this.nextDue, other.nextDue),
				this.trimmedDeadJobs + other.trimmedDeadJobs, this.handOvers || other.handOvers);
	}

}
