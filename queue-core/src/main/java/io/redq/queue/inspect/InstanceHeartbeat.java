package io.redq.queue.inspect;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.support.JobQueueLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Tells the {@link InstanceRegistry} that this application instance is alive, and which
 * queues it consumes with what concurrency and how many jobs in flight: at start, then
 * every {@link #setInterval(Duration) interval}; the instance is listed for three
 * intervals after its latest heartbeat, and removed when it stops (within 2 seconds, or
 * it expires by itself).
 *
 * @author Redq team
 * @since 0.1.0
 */
public class InstanceHeartbeat implements JobQueueLifecycle {

	private static final Log logger = LogFactory.getLog(InstanceHeartbeat.class);

	private static final Duration REMOVAL_TIMEOUT = Duration.ofSeconds(2);

	private final InstanceRegistry registry;

	private final JobListenerRegistry listeners;

	private final String application;

	private final String host;

	private final long pid = ProcessHandle.current().pid();

	private final String id;

	private final Object lifecycleMonitor = new Object();

	private Duration interval = Duration.ofSeconds(10);

	private @Nullable ScheduledExecutorService scheduler;

	private @Nullable Future<?> beats;

	private @Nullable Instant startedAt;

	private volatile boolean failing;

	/**
	 * Create an instance.
	 * @param registry the registry to write to
	 * @param listeners the listener containers of this application
	 * @param application the application name
	 */
	public InstanceHeartbeat(InstanceRegistry registry, JobListenerRegistry listeners, String application) {
		this.registry = registry;
		this.listeners = listeners;
		this.application = application;
		this.host = hostName();
		// two contexts of one process (tests, a parent and a child) are two instances
		this.id = application + "@" + this.host + ":" + this.pid + ":" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Set how often this instance's heartbeat is written; it is listed for three times as
	 * long after its latest.
	 * <p>
	 * Default 10 seconds.
	 * @param interval the interval, positive
	 */
	public void setInterval(Duration interval) {
		Assert.isTrue(interval.toMillis() > 0, () -> "The heartbeat interval must be positive, not " + interval);
		this.interval = interval;
	}

	/**
	 * Return the id this instance is listed under.
	 * @return the instance id
	 */
	public String getId() {
		return this.id;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.scheduler != null) {
				return;
			}
			this.startedAt = Instant.now();
			ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "redq-heartbeat");
				thread.setDaemon(true);
				return thread;
			});
			this.beats = scheduler.scheduleWithFixedDelay(this::beat, 0, this.interval.toMillis(),
					TimeUnit.MILLISECONDS);
			this.scheduler = scheduler;
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleMonitor) {
			ScheduledExecutorService scheduler = this.scheduler;
			if (scheduler == null) {
				return;
			}
			this.scheduler = null;
			// no heartbeat after the removal: one that fell due meanwhile would list the
			// instance again
			Future<?> beats = this.beats;
			if (beats != null) {
				beats.cancel(false);
			}
			// after a heartbeat under way; a Redis that does not answer does not hold the
			// shutdown up: the instance then expires by itself
			Future<?> removal = scheduler.submit(() -> this.registry.remove(this.id));
			scheduler.shutdown();
			try {
				removal.get(REMOVAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				logger.debug("Could not remove instance " + this.id + "; it expires by itself", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				scheduler.shutdownNow();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

	/**
	 * Write this instance's heartbeat now, with its queues as they are; the scheduled
	 * heartbeats call it. A failure is logged, once per outage.
	 */
	public void beat() {
		Instant startedAt = this.startedAt;
		List<InstanceView.ConsumedQueue> queues = new ArrayList<>();
		for (JobListenerContainer container : this.listeners.getListenerContainers()) {
			queues.add(new InstanceView.ConsumedQueue(container.getQueue(),
					container.getContainerProperties().getConcurrency(), container.getInFlightCount(),
					container.isRunning()));
		}
		try {
			this.registry.heartbeat(
					new InstanceView(this.id, this.application, this.host, this.pid,
							(startedAt != null) ? startedAt : Instant.now(), Instant.now(), queues),
					this.interval.multipliedBy(3));
			if (this.failing) {
				this.failing = false;
				logger.info("Heartbeat of instance " + this.id + " written again");
			}
		}
		catch (RuntimeException ex) {
			// said once per outage: Redis out of reach is reported by the containers too
			if (!this.failing) {
				this.failing = true;
				logger.warn("Could not write the heartbeat of instance " + this.id + "; it is retried every "
						+ this.interval + ": " + ex);
			}
		}
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			String host = System.getenv("HOSTNAME");
			return (host != null && !host.isBlank()) ? host : "unknown-host";
		}
	}

}
