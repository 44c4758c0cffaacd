package io.redq.queue.autoconfigure.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.listener.JobListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the queues this application consumes: Redis answers the queue scripts, every
 * listener container that should run does, and, when thresholds are set, no queue's
 * backlog or oldest ready job exceeds them. Details give each queue's counts, oldest age
 * and state. The queues are read within the inspector's read timeout: while Redis does
 * not answer, the health is DOWN with the reason within about that time.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobQueueHealthIndicator extends AbstractHealthIndicator {

	private final JobQueueInspector inspector;

	private final JobListenerRegistry registry;

	private final @Nullable Long maxBacklog;

	private final @Nullable Duration maxOldestAge;

	private final Status thresholdStatus;

	/**
	 * Create an instance.
	 * @param inspector the inspector that reads the queues
	 * @param registry the registry of listener containers
	 * @param maxBacklog the most ready and delayed jobs a queue may hold, or {@code null}
	 * @param maxOldestAge the longest a ready job may wait, or {@code null}
	 * @param thresholdStatus the status when a threshold is exceeded
	 */
	public JobQueueHealthIndicator(JobQueueInspector inspector, JobListenerRegistry registry, @Nullable Long maxBacklog,
			@Nullable Duration maxOldestAge, Status thresholdStatus) {
		super("Redq queues are not healthy");
		this.inspector = inspector;
		this.registry = registry;
		this.maxBacklog = maxBacklog;
		this.maxOldestAge = maxOldestAge;
		this.thresholdStatus = thresholdStatus;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		// within the read timeout, so that a probe sees DOWN while Redis is down rather
		// than waiting for the Redis command timeout; the builder is filled here, not by
		// reads that may still run after it
		Checked checked = this.inspector.read(this::check);
		checked.details().forEach(builder::withDetail);
		builder.status(checked.status());
	}

	private Checked check() {
		Status status = Status.UP;
		Map<String, Object> queues = new LinkedHashMap<>();
		for (JobListenerContainer container : this.registry.getListenerContainers()) {
			String queue = container.getQueue();
			QueueSnapshot snapshot = this.inspector.snapshot(queue);
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("ready", snapshot.stats().ready());
			details.put("delayed", snapshot.stats().delayed());
			details.put("reserved", snapshot.stats().reserved());
			details.put("dead", snapshot.stats().dead());
			details.put("oldestReadyAge", snapshot.oldestReadyAge().toString());
			details.put("running", container.isRunning());
			details.put("paused", snapshot.paused());
			if (this.registry.isRunning() && container.isAutoStartup() && !container.isRunning()) {
				details.put("problem", "the listener container is not running");
				status = Status.DOWN;
			}
			else if (exceeds(snapshot)) {
				details.put("problem", "the backlog or the oldest ready job exceeds its threshold");
				status = (status == Status.DOWN) ? status : this.thresholdStatus;
			}
			queues.put(queue, details);
		}
		return new Checked(status, queues);
	}

	private boolean exceeds(QueueSnapshot snapshot) {
		return (this.maxBacklog != null && snapshot.stats().ready() + snapshot.stats().delayed() > this.maxBacklog)
				|| (this.maxOldestAge != null && snapshot.oldestReadyAge().compareTo(this.maxOldestAge) > 0);
	}

	private record Checked(Status status, Map<String, Object> details) {
	}

}
