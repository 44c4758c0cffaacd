package io.redq.queue.core;

/**
 * How many jobs of a queue are in each state, read in one consistent step.
 *
 * @param ready jobs waiting to run
 * @param delayed jobs waiting for their due time (including retries in backoff)
 * @param reserved jobs held by a worker under a lease
 * @param dead jobs that used up their attempts or were rejected
 * @author Redq team
 * @since 0.1.0
 */
public record QueueStats(long ready, long delayed, long reserved, long dead) {

	/**
	 * Return the number of jobs not yet finished: ready, delayed and reserved.
	 * @return the pending count
	 */
	public long pending() {
		return this.ready + this.delayed + this.reserved;
	}

}
