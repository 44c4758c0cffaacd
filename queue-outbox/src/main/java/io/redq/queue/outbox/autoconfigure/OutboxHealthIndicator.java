package io.redq.queue.outbox.autoconfigure;

import java.time.Duration;
import java.time.Instant;

import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.OutboxStatus;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the outbox, from a reading that costs the same however many rows wait:
 * {@link #PARKED} when the relay moved rows aside, {@link #LAGGING} when the oldest row
 * has waited longer than the allowed lag (no relay runs, or Redis does not take the
 * jobs), {@code UP} otherwise, with the backlog, lag and parked rows as details.
 * <p>
 * Neither of the two statuses is in Spring Boot's default status order, so they show on
 * the {@code redqOutbox} component without turning the application's health {@code DOWN}:
 * Redis being slow should not make an orchestrator restart the instances that still take
 * orders. To make them count, add them to
 * {@code management.endpoint.health.status.order}. {@code DOWN} means that the table
 * could not be read.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class OutboxHealthIndicator extends AbstractHealthIndicator {

	/** The status when rows were moved aside and wait for an operator. */
	public static final Status PARKED = new Status("PARKED", "Outbox rows were moved aside; see redq_outbox_parked");

	/** The status when the oldest row has waited longer than the allowed lag. */
	public static final Status LAGGING = new Status("LAGGING", "The oldest outbox row waits longer than allowed");

	private final JdbcJobOutbox outbox;

	private final Duration maxLag;

	/**
	 * Create an instance.
	 * @param outbox the outbox
	 * @param maxLag the longest wait of the oldest row before the outbox is lagging
	 */
	public OutboxHealthIndicator(JdbcJobOutbox outbox, Duration maxLag) {
		super("Outbox health check failed");
		this.outbox = outbox;
		this.maxLag = maxLag;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		OutboxStatus status = this.outbox.status();
		Duration lag = status.lag(Instant.now());
		builder.status((status.parked() > 0) ? PARKED : (lag.compareTo(this.maxLag) > 0) ? LAGGING : Status.UP)
			.withDetail("backlog", status.jobs())
			.withDetail("rows", status.rows())
			.withDetail("parked", status.parked())
			.withDetail("lag", lag.toString())
			.withDetail("maxLag", this.maxLag.toString());
		if (status.rows() >= JdbcJobOutbox.COUNT_LIMIT) {
			builder.withDetail("counted", "the first " + JdbcJobOutbox.COUNT_LIMIT + " rows");
		}
	}

}
