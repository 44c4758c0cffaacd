package io.redq.queue.outbox;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What waits in the outbox table for the relay, and what it moved aside; each count stops
 * at {@value JdbcJobOutbox#COUNT_LIMIT} rows.
 *
 * @param rows the rows waiting (one per queue per transaction, of up to 1,000 jobs and
 * timer calls)
 * @param jobs the jobs in them
 * @param oldest when the oldest waiting row was written, or {@code null} when none waits
 * @param parked the rows moved aside, which the relay no longer applies
 * @author Redq team
 * @since 0.1.0
 */
public record OutboxStatus(long rows, long jobs, @Nullable Instant oldest, long parked) {

	/**
	 * Return how long the oldest row has waited.
	 * @param now the current time
	 * @return the lag, zero when no row waits
	 */
	public Duration lag(Instant now) {
		return (this.oldest != null && this.oldest.isBefore(now)) ? Duration.between(this.oldest, now) : Duration.ZERO;
	}

}
