package io.redq.queue.outbox;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What waits in the outbox table for the relay.
 *
 * @param rows the rows (one per queue per transaction, of up to 1,000 jobs)
 * @param jobs the jobs in them
 * @param oldest when the oldest row was written, or {@code null} when the table is empty
 * @author Redq team
 * @since 0.1.0
 */
public record OutboxStatus(long rows, long jobs, @Nullable Instant oldest) {

	/**
	 * Return how long the oldest row has waited.
	 * @param now the current time
	 * @return the lag, zero when the table is empty
	 */
	public Duration lag(Instant now) {
		return (this.oldest != null && this.oldest.isBefore(now)) ? Duration.between(this.oldest, now) : Duration.ZERO;
	}

}
