package io.redq.queue.metrics;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueSnapshot;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of each queue's state: {@code redq.queue.jobs} tagged by {@code queue} and
 * {@code state} ({@code ready}, {@code delayed}, {@code reserved}, {@code dead}), and
 * {@code redq.queue.oldest.age}, how long the oldest ready job has waited, the best
 * signal of whether a queue keeps up. The gauges of a queue share one Redis read, taken
 * at most once per second.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class QueueMeterBinder implements MeterBinder {

	private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Log logger = LogFactory.getLog(QueueMeterBinder.class);

	private final JobQueueOperations operations;

	private final Collection<String> queues;

	/**
	 * Create an instance.
	 * @param operations the queue operations
	 * @param queues the queues to watch
	 */
	public QueueMeterBinder(JobQueueOperations operations, Collection<String> queues) {
		this.operations = operations;
		this.queues = queues;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String queue : this.queues) {
			Snapshots snapshots = new Snapshots(queue);
			gauge(registry, queue, "ready", snapshots, (snapshot) -> snapshot.stats().ready());
			gauge(registry, queue, "delayed", snapshots, (snapshot) -> snapshot.stats().delayed());
			gauge(registry, queue, "reserved", snapshots, (snapshot) -> snapshot.stats().reserved());
			gauge(registry, queue, "dead", snapshots, (snapshot) -> snapshot.stats().dead());
			Gauge.builder("redq.queue.oldest.age", snapshots, (s) -> s.read((snapshot) -> seconds(snapshot)))
				.description("How long the oldest ready job has waited")
				.tag("queue", queue)
				.baseUnit("seconds")
				.register(registry);
		}
	}

	private static void gauge(MeterRegistry registry, String queue, String state, Snapshots snapshots,
			ToDoubleFunction<QueueSnapshot> value) {
		Gauge.builder("redq.queue.jobs", snapshots, (s) -> s.read(value))
			.description("Jobs of the queue in each state")
			.tag("queue", queue)
			.tag("state", state)
			.register(registry);
	}

	private static double seconds(QueueSnapshot snapshot) {
		Duration age = snapshot.oldestReadyAge();
		return age.toNanos() / 1e9;
	}

	/**
	 * One queue's latest snapshot, read again when older than a second.
	 */
	private final class Snapshots {

		private final String queue;

		private @Nullable QueueSnapshot snapshot;

		private long readAt;

		Snapshots(String queue) {
			this.queue = queue;
		}

		synchronized double read(ToDoubleFunction<QueueSnapshot> value) {
			if (this.snapshot == null || System.nanoTime() - this.readAt > MAX_AGE_NANOS) {
				try {
					this.snapshot = QueueMeterBinder.this.operations.snapshot(this.queue);
					this.readAt = System.nanoTime();
				}
				catch (RuntimeException ex) {
					logger.debug("Could not read the state of queue '" + this.queue + "'", ex);
					return Double.NaN;
				}
			}
			return value.applyAsDouble(this.snapshot);
		}

	}

}
