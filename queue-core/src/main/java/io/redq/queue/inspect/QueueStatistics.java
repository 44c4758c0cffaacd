package io.redq.queue.inspect;

import java.time.Instant;
import java.util.List;

/**
 * How many jobs of a queue completed, failed an attempt and died, per minute over the
 * last hour and per hour over the last days, counted by the scripts of every instance and
 * kept in Redis.
 *
 * @param minutes the last 60 minutes, oldest first, the current minute last
 * @param hours the last hours the retention keeps, oldest first, the current hour last
 * @author Redq team
 * @since 0.1.0
 */
public record QueueStatistics(List<Bucket> minutes, List<Bucket> hours) {

	/**
	 * The counts of one minute or hour.
	 *
	 * @param start when it started (Redis clock)
	 * @param completed jobs that completed
	 * @param failed attempts that failed, the last attempt of a dead job included
	 * @param dead jobs that died
	 */
	public record Bucket(Instant start, long completed, long failed, long dead) {
	}

}
