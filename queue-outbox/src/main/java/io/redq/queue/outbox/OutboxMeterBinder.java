package io.redq.queue.outbox;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the outbox: {@code redq.outbox.backlog}, the jobs waiting in the table, and
 * {@code redq.outbox.lag}, how long the oldest row has waited. Each reading queries the
 * table.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class OutboxMeterBinder implements MeterBinder {

	private final JdbcJobOutbox outbox;

	/**
	 * Create an instance.
	 * @param outbox the outbox to measure
	 */
	public OutboxMeterBinder(JdbcJobOutbox outbox) {
		this.outbox = outbox;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("redq.outbox.backlog", this.outbox, (outbox) -> outbox.status().jobs())
			.description("Jobs written to the outbox table and not yet relayed to Redis")
			.baseUnit("jobs")
			.register(registry);
		TimeGauge
			.builder("redq.outbox.lag", this.outbox, TimeUnit.MILLISECONDS,
					(outbox) -> outbox.status().lag(Instant.now()).toMillis())
			.description("How long the oldest row of the outbox table has waited for the relay")
			.register(registry);
	}

}
