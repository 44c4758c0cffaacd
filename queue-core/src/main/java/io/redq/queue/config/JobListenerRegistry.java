package io.redq.queue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.event.ContainerConsumingEvent;
import io.redq.queue.event.ContainerStoppedEvent;
import io.redq.queue.event.ContainersConsumingEvent;
import io.redq.queue.support.JobQueueLifecycle;
import io.redq.queue.listener.DeadJobCallback;
import io.redq.queue.listener.JobHandler;
import io.redq.queue.listener.JobListenerContainer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.util.Assert;

/**
 * Manages the listener container of each queue that has handlers. Containers are not
 * beans; reach them with {@link #getListenerContainer(String)}. Each handler's job is
 * registered in the {@link JobCatalog}, which the dispatcher reads.
 *
 * <p>
 * The containers publish their events with the registry's publisher (the application
 * context's, when the registry is a bean); once after each start, when every container
 * that starts with the registry consumes its queue, the registry publishes a
 * {@link ContainersConsumingEvent}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobListenerRegistry implements JobQueueLifecycle, ApplicationEventPublisherAware {

	private static final Log logger = LogFactory.getLog(JobListenerRegistry.class);

	private final JobCatalog catalog;

	private final List<JobHandler> handlers = new ArrayList<>();

	private final Map<String, JobListenerContainer> containers = new LinkedHashMap<>();

	private final Map<String, DeadJobCallback> deadJobCallbacks = new LinkedHashMap<>();

	private volatile boolean running;

	private @Nullable ApplicationEventPublisher eventPublisher;

	/** The queues whose container consumes since it started; guarded by this. */
	private final Set<String> consuming = new HashSet<>();

	/** Whether the containers were all consuming since the registry started. */
	private boolean allConsuming;

	/**
	 * Create an instance.
	 * @param catalog the catalog the handlers' jobs are registered in
	 */
	public JobListenerRegistry(JobCatalog catalog) {
		this.catalog = catalog;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	/**
	 * Register the handler of a job, and its job in the catalog.
	 * @param handler the handler
	 * @throws IllegalStateException when another job has the same name
	 */
	public synchronized void registerHandler(JobHandler handler) {
		this.catalog.register(handler.getDefinition());
		this.handlers.add(handler);
	}

	/**
	 * Register what is called when a job of the given name dies; the job's handler must
	 * be registered by the time the containers are created.
	 * @param jobName the job name
	 * @param callback the callback
	 * @throws IllegalStateException when the job has a callback already
	 */
	public synchronized void registerDeadJobCallback(String jobName, DeadJobCallback callback) {
		DeadJobCallback existing = this.deadJobCallbacks.putIfAbsent(jobName, callback);
		Assert.state(existing == null, () -> "Job '" + jobName + "' has two dead-job handlers, " + existing + " and "
				+ callback + "; keep one");
	}

	/**
	 * Return the catalog the handlers' jobs are registered in, where a
	 * {@code JobListenerConfigurer} also registers the jobs this application only
	 * dispatches.
	 * @return the catalog
	 */
	public JobCatalog getJobCatalog() {
		return this.catalog;
	}

	/**
	 * Return the handler of a job, for tools that run one directly, such as tests.
	 * @param jobName the job's name
	 * @return the handler, or {@code null} when this application does not handle the job
	 * @since 0.1.0
	 */
	public synchronized @Nullable JobHandler getHandler(String jobName) {
		return this.handlers.stream()
			.filter((handler) -> handler.getDefinition().name().equals(jobName))
			.findFirst()
			.orElse(null);
	}

	/**
	 * Return whether any handler is registered.
	 * @return whether this application handles jobs
	 */
	public synchronized boolean hasHandlers() {
		return !this.handlers.isEmpty();
	}

	/**
	 * Create a container for each queue that has handlers and no container yet; start
	 * them when the registry runs.
	 * @param factory the container factory
	 */
	public synchronized void createContainers(JobListenerContainerFactory factory) {
		this.deadJobCallbacks.forEach((jobName, callback) -> Assert.state(getHandler(jobName) != null,
				() -> callback + " handles the deaths of job '" + jobName + "', which has no handler in this "
						+ "application: a dead-job handler runs where the job runs, beside its @QueuedJob method. Jobs "
						+ "with handlers here: "
						+ this.handlers.stream().map((h) -> h.getDefinition().name()).toList()));
		Map<String, List<JobHandler>> byQueue = new LinkedHashMap<>();
		for (JobHandler handler : this.handlers) {
			byQueue.computeIfAbsent(handler.getDefinition().queue(), (queue) -> new ArrayList<>()).add(handler);
		}
		byQueue.forEach((queue, handlers) -> {
			if (!this.containers.containsKey(queue)) {
				JobListenerContainer container = factory.createContainer(queue, handlers);
				container.setDeadJobCallbacks(deadJobCallbacks(handlers));
				if (this.eventPublisher != null) {
					container.setApplicationEventPublisher(this::containerEvent);
				}
				this.containers.put(queue, container);
				if (this.running && container.isAutoStartup()) {
					container.start();
				}
			}
		});
	}

	private Map<String, DeadJobCallback> deadJobCallbacks(List<JobHandler> handlers) {
		Map<String, DeadJobCallback> callbacks = new LinkedHashMap<>();
		for (JobHandler handler : handlers) {
			DeadJobCallback callback = this.deadJobCallbacks.get(handler.getDefinition().name());
			if (callback != null) {
				callbacks.put(handler.getDefinition().name(), callback);
			}
		}
		return callbacks;
	}

	/**
	 * Return the container of a queue.
	 * @param queue the queue
	 * @return the container, or {@code null} when this application has no handler on that
	 * queue
	 */
	public synchronized @Nullable JobListenerContainer getListenerContainer(String queue) {
		return this.containers.get(queue);
	}

	/**
	 * Return every container.
	 * @return the containers, one per queue
	 */
	public synchronized Collection<JobListenerContainer> getListenerContainers() {
		return Collections.unmodifiableList(new ArrayList<>(this.containers.values()));
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void start() {
		for (JobListenerContainer container : getListenerContainers()) {
			if (container.isAutoStartup()) {
				container.start();
			}
		}
		this.running = true;
		announceIfAllConsuming();
	}

	/**
	 * Pass a container's event on, and announce when the containers all consume.
	 */
	private void containerEvent(Object event) {
		synchronized (this) {
			if (event instanceof ContainerConsumingEvent consumingEvent) {
				this.consuming.add(consumingEvent.getQueue());
			}
			else if (event instanceof ContainerStoppedEvent stoppedEvent) {
				this.consuming.remove(stoppedEvent.getQueue());
			}
		}
		this.eventPublisher.publishEvent(event);
		if (event instanceof ContainerConsumingEvent) {
			announceIfAllConsuming();
		}
	}

	private void announceIfAllConsuming() {
		ApplicationEventPublisher eventPublisher = this.eventPublisher;
		Set<String> queues;
		synchronized (this) {
			if (eventPublisher == null || !this.running || this.allConsuming) {
				return;
			}
			queues = new HashSet<>();
			for (JobListenerContainer container : this.containers.values()) {
				if (container.isAutoStartup()) {
					if (!this.consuming.contains(container.getQueue())) {
						return;
					}
					queues.add(container.getQueue());
				}
			}
			this.allConsuming = true;
		}
		ContainersConsumingEvent event = new ContainersConsumingEvent(this, queues);
		try {
			eventPublisher.publishEvent(event);
		}
		catch (RuntimeException ex) {
			// a listener that fails does not stop the containers
			logger.warn("Could not publish " + event, ex);
		}
	}

	@Override
	public void stop() {
		this.running = false;
		resetConsuming();
		getListenerContainers().forEach(JobListenerContainer::stop);
	}

	@Override
	public void stop(Runnable callback) {
		this.running = false;
		resetConsuming();
		Collection<JobListenerContainer> running = getListenerContainers().stream()
			.filter(JobListenerContainer::isRunning)
			.toList();
		if (running.isEmpty()) {
			callback.run();
			return;
		}
		// the containers stop in parallel; the callback runs when the last one is done
		AtomicInteger remaining = new AtomicInteger(running.size());
		for (JobListenerContainer container : running) {
			container.stop(() -> {
				if (remaining.decrementAndGet() == 0) {
					callback.run();
				}
			});
		}
	}

	private synchronized void resetConsuming() {
		this.allConsuming = false;
	}

}
