package io.redq.queue.outbox;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the outbox: {@code redq.outbox.backlog}, the jobs waiting in the table,
 * {@code redq.outbox.lag}, how long the oldest row has waited, and
 * {@code redq.outbox.parked}, the rows the relay moved aside. Each reading runs the
 * bounded queries of {@link JdbcJobOutbox#status()}.
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
			.description("Jobs written to the outbox table and not yet relayed to Redis (counted in the first "
					+ JdbcJobOutbox.COUNT_LIMIT + " rows)")
			.baseUnit("jobs")
			.register(registry);
		TimeGauge
			.builder("redq.outbox.lag", this.outbox, TimeUnit.MILLISECONDS,
					(outbox) -> outbox.status().lag(Instant.now()).toMillis())
			.description("How long the oldest row of the outbox table has waited for the relay")
			.register(registry);
		Gauge.builder("redq.outbox.parked", this.outbox, (outbox) -> outbox.status().parked())
			.description("Outbox rows that the relay moved aside to redq_outbox_parked, for an operator")
			.baseUnit("rows")
			.register(registry);
	}

}
