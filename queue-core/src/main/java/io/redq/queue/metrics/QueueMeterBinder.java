package io.redq.queue.metrics;

import java.time.Duration;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.JobQueueInspector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Gauges of each queue's state: {@code redq.queue.jobs} tagged by {@code queue} and
 * {@code state} ({@code ready}, {@code delayed}, {@code reserved}, {@code dead}), and
 * {@code redq.queue.oldest.age}, how long the oldest ready job has waited, the best
 * signal of whether a queue keeps up, for every queue of the
 * {@link JobQueueInspector#knownQueues() jobs this application knows} when the meters are
 * bound. The gauges of a queue share the inspector's
 * {@link JobQueueInspector#recentSnapshot(String) recent snapshot}, one Redis read per
 * second at most.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class QueueMeterBinder implements MeterBinder {

	private static final Log logger = LogFactory.getLog(QueueMeterBinder.class);

	private final JobQueueInspector inspector;

	/**
	 * Create an instance.
	 * @param inspector the inspector that lists the queues and reads their state
	 */
	public QueueMeterBinder(JobQueueInspector inspector) {
		this.inspector = inspector;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String queue : this.inspector.knownQueues()) {
			gauge(registry, queue, "ready", (snapshot) -> snapshot.stats().ready());
			gauge(registry, queue, "delayed", (snapshot) -> snapshot.stats().delayed());
			gauge(registry, queue, "reserved", (snapshot) -> snapshot.stats().reserved());
			gauge(registry, queue, "dead", (snapshot) -> snapshot.stats().dead());
			Gauge.builder("redq.queue.oldest.age", this, (binder) -> binder.read(queue, QueueMeterBinder::seconds))
				.description("How long the oldest ready job has waited")
				.tag("queue", queue)
				.baseUnit("seconds")
				.strongReference(true)
				.register(registry);
		}
	}

	private void gauge(MeterRegistry registry, String queue, String state, ToDoubleFunction<QueueSnapshot> value) {
		Gauge.builder("redq.queue.jobs", this, (binder) -> binder.read(queue, value))
			.description("Jobs of the queue in each state")
			.tag("queue", queue)
			.tag("state", state)
			.strongReference(true)
			.register(registry);
	}

	private static double seconds(QueueSnapshot snapshot) {
		Duration age = snapshot.oldestReadyAge();
		return age.toNanos() / 1e9;
	}

	private double read(String queue, ToDoubleFunction<QueueSnapshot> value) {
		try {
			return value.applyAsDouble(this.inspector.recentSnapshot(queue));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the state of queue '" + queue + "'", ex);
			return Double.NaN;
		}
	}

}
