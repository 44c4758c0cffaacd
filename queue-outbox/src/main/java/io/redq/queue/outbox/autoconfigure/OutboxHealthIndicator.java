package io.redq.queue.outbox.autoconfigure;

import java.time.Duration;
import java.time.Instant;

import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.OutboxStatus;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the outbox: down when its oldest row has waited longer than the allowed lag
 * (no relay runs, or Redis does not take the jobs), with the backlog and lag as details.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class OutboxHealthIndicator extends AbstractHealthIndicator {

	private final JdbcJobOutbox outbox;

	private final Duration maxLag;

	/**
	 * Create an instance.
	 * @param outbox the outbox
	 * @param maxLag the longest wait of the oldest row before the outbox is down
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
		builder.status((lag.compareTo(this.maxLag) > 0) ? Status.DOWN : Status.UP)
			.withDetail("backlog", status.jobs())
			.withDetail("rows", status.rows())
			.withDetail("lag", lag.toString())
			.withDetail("maxLag", this.maxLag.toString());
	}

}
