package io.redq.sample;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The rows of the outbox table ({@code queue-outbox}): the jobs and timer calls of
 * committed transactions that its relay has not sent to Redis yet.
 *
 * @author Redq team
 */
public final class OutboxRows {

	private OutboxRows() {
	}

	/**
	 * Return how many rows wait for the relay, and how many it moved aside.
	 * @param jdbc the shop's database
	 * @return the rows waiting plus the rows parked
	 */
	public static long count(JdbcClient jdbc) {
		return jdbc.sql("SELECT (SELECT COUNT(*) FROM redq_outbox) + (SELECT COUNT(*) FROM redq_outbox_parked)")
			.query(Long.class)
			.single();
	}

}
