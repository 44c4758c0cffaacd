package io.redq.queue.metrics;

import java.time.Duration;
import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.redq.queue.core.JobMetrics;
import org.jspecify.annotations.Nullable;

/**
 * {@link JobMetrics} that records Micrometer meters, tagged by queue and job (never by
 * job id):
 * <ul>
 * <li>{@code redq.jobs.dispatched}: counter of jobs that entered their queue (see
 * {@link JobMetrics#dispatched(String, String)});</li>
 * <li>{@code redq.jobs.processed}: timer of attempts, tagged with {@code outcome}
 * ({@code completed}, {@code retried}, {@code dead}, {@code lease-lost}) and
 * {@code exception} (simple class name, or {@code none});</li>
 * <li>{@code redq.jobs.wait}: timer of how long jobs waited from their due time until
 * they started.</li>
 * </ul>
 *
 * @author Redq team
 * @since 0.1.0
 * @see QueueMeterBinder
 */
public class MicrometerJobMetrics implements JobMetrics {

	private final MeterRegistry registry;

	/**
	 * Create an instance.
	 * @param registry the registry to record to
	 */
	public MicrometerJobMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void dispatched(String queue, String job) {
		Counter.builder("redq.jobs.dispatched")
			.description("Jobs that entered their queue")
			.tag("queue", queue)
			.tag("job", job)
			.register(this.registry)
			.increment();
	}

	@Override
	public void processed(String queue, String job, Outcome outcome, @Nullable Throwable error, Duration processing,
			Duration wait) {
		Timer.builder("redq.jobs.processed")
			.description("Attempts of jobs, by how they ended")
			.tag("queue", queue)
			.tag("job", job)
			.tag("outcome", outcome.name().toLowerCase(Locale.ROOT).replace('_', '-'))
			.tag("exception", (error != null) ? error.getClass().getSimpleName() : "none")
			.register(this.registry)
			.record(processing);
		if (outcome != Outcome.LEASE_LOST) {
			Timer.builder("redq.jobs.wait")
				.description("Time from a job's due time until it started")
				.tag("queue", queue)
				.tag("job", job)
				.register(this.registry)
				.record(wait);
		}
	}

}
