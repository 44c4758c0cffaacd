package io.redq.queue.listener;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.support.JobQueueLifecycle;
import io.redq.queue.core.DataModelMismatchException;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.event.ContainerConsumingEvent;
import io.redq.queue.event.ContainerStartedEvent;
import io.redq.queue.event.ContainerStoppedEvent;
import io.redq.queue.event.JobDeadEvent;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobObservation;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Runs the jobs of one queue: reserves them in batches under a lease, runs their handlers
 * on a pool of workers, renews the leases of running jobs, acknowledges completed jobs in
 * batches, and retries failed ones or moves them to dead as its {@link JobErrorHandler}
 * decides.
 *
 * <p>
 * An idle container blocks on the queue's wake-up key rather than polling; dispatches
 * wake it. The container also runs the queue's migrator, which sleeps until the next
 * delayed job is due or the next lease expires and then moves them, so several
 * application instances may run it at once.
 *
 * <p>
 * The container keeps the lifecycle and wires its parts, each in a class of its own:
 * {@code JobFetcher} reserves, {@code JobPrefetch} sizes the reservations ahead,
 * {@code JobWorkerPool} runs the handlers through the {@link JobInterceptor}s,
 * {@code JobLeaseKeeper} renews leases and holds gates, {@code JobOutcomes} settles each
 * attempt, {@code JobAcknowledger} acknowledges in batches and {@code JobMigrator} moves
 * due and expired jobs. They all log under this class's name.
 *
 * <p>
 * Containers are not beans: the {@code JobListenerRegistry} creates, starts and stops
 * them.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobListenerContainer implements JobQueueLifecycle {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final Map<String, JobHandler> handlers;

	private final ContainerProperties properties;

	private final ListenerOperations operations;

	private final Object lifecycleMonitor = new Object();

	private final JobAcknowledger acknowledger;

	private final JobOutcomes outcomes;

	private final JobLeaseKeeper leaseKeeper;

	private final JobPrefetch prefetch;

	private final JobWorkerPool workerPool;

	private final JobMigrator migrator;

	private final JobFetcher fetcher;

	private List<JobInterceptor> interceptors = List.of();

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobProcessObservationConvention observationConvention;

	private ApplicationEventPublisher eventPublisher = (event) -> {
	};

	private volatile boolean running;

	/**
	 * One permit per reserved job, running or waiting for a worker: concurrency plus
	 * prefetch. Each start creates new ones.
	 */
	private volatile @Nullable Semaphore permits;

	private @Nullable ScheduledExecutorService scheduler;

	/**
	 * Create a container.
	 * @param queue the queue to consume
	 * @param operations the queue operations
	 * @param jsonMapper the mapper that reads job envelopes
	 * @param handlers the handlers, one per job name
	 * @param properties the settings
	 */
	public JobListenerContainer(String queue, ListenerOperations operations, JsonMapper jsonMapper,
			Collection<JobHandler> handlers, ContainerProperties properties) {
		this.queue = queue;
		this.handlers = new LinkedHashMap<>();
		for (JobHandler handler : handlers) {
			Assert.state(this.handlers.put(handler.getDefinition().name(), handler) == null,
					() -> "Two handlers for job '" + handler.getDefinition().name() + "'");
		}
		this.properties = new ContainerProperties(properties);
		this.operations = operations;
		this.acknowledger = new JobAcknowledger(queue, operations, this.properties.getLeaseTime());
		this.outcomes = new JobOutcomes(queue, operations, this.acknowledger);
		this.prefetch = new JobPrefetch(queue, this::isRunning, this.properties);
		this.leaseKeeper = new JobLeaseKeeper(queue, operations, this.properties, this.handlers.values(), this.outcomes,
				this.prefetch::runSize);
		this.workerPool = new JobWorkerPool(queue, this::isRunning, operations, this.handlers, this.leaseKeeper,
				this.outcomes, this.prefetch);
		this.migrator = new JobMigrator(queue, this::isRunning, operations, this.properties);
		this.fetcher = new JobFetcher(this, operations, this.properties, this.prefetch, this.workerPool, this.migrator);
	}

	/**
	 * Return how many jobs this container holds: running, or reserved ahead and waiting
	 * for a worker.
	 * @return the number of jobs in flight
	 */
	public int getInFlightCount() {
		return this.workerPool.executions().size();
	}

	/**
	 * Return the queue this container consumes.
	 * @return the queue name
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * Return the names of the jobs this container runs.
	 * @return the job names
	 */
	public Set<String> getJobNames() {
		return this.handlers.keySet();
	}

	/**
	 * Return the settings.
	 * @return a copy of the settings
	 */
	public ContainerProperties getContainerProperties() {
		return new ContainerProperties(this.properties);
	}

	/**
	 * Set the metrics to report each attempt's outcome to.
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.outcomes.setMetrics(metrics);
	}

	/**
	 * Set the error handler that decides whether a failed or timed-out attempt is
	 * retried, for the jobs that do not name their own.
	 * <p>
	 * Default a {@link DefaultJobErrorHandler}: each job's backoff and attempts.
	 * @param errorHandler the error handler
	 * @see JobHandler#getErrorHandler()
	 */
	public void setErrorHandler(JobErrorHandler errorHandler) {
		Assert.notNull(errorHandler, "JobErrorHandler must not be null");
		this.outcomes.setErrorHandler(errorHandler);
	}

	/**
	 * Set the interceptors of every attempt, in the order they run (the first one
	 * outermost); they apply from the next start.
	 * <p>
	 * Default none.
	 * @param interceptors the interceptors
	 */
	public void setInterceptors(List<JobInterceptor> interceptors) {
		Assert.noNullElements(interceptors, "interceptors must not contain null");
		this.interceptors = List.copyOf(interceptors);
	}

	/**
	 * Set what is called when a job of a given name dies, by job name.
	 * <p>
	 * Default none.
	 * @param deadJobCallbacks the callbacks, by job name
	 */
	public void setDeadJobCallbacks(Map<String, DeadJobCallback> deadJobCallbacks) {
		this.outcomes.setDeadJobCallbacks(deadJobCallbacks);
	}

	/**
	 * Set the publisher of the container's events: {@link ContainerStartedEvent},
	 * {@link ContainerConsumingEvent}, {@link ContainerStoppedEvent} and
	 * {@link JobDeadEvent}.
	 * <p>
	 * Default none: no events.
	 * @param eventPublisher the publisher
	 */
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		Assert.notNull(eventPublisher, "eventPublisher must not be null");
		this.eventPublisher = eventPublisher;
		this.outcomes.setEventPublisher(this, eventPublisher);
	}

	/**
	 * Set whether each attempt is observed with the {@link ObservationRegistry}, as
	 * {@link JobObservation#PROCESS}, in the trace whose context the job's headers carry:
	 * the observation is the first interceptor, around the others. Applies from the next
	 * start.
	 * <p>
	 * Default {@code false}.
	 * @param observationEnabled whether to observe processing
	 */
	public void setObservationEnabled(boolean observationEnabled) {
		this.observationEnabled = observationEnabled;
	}

	/**
	 * Set the registry that observes processing when observation is enabled.
	 * <p>
	 * Default {@link ObservationRegistry#NOOP}.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Set the convention that names and tags the processing observations.
	 * <p>
	 * Default {@code null}: {@link DefaultJobProcessObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable JobProcessObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Return the interceptor chain of a run: the observation first, when enabled.
	 */
	private JobInterceptors interceptorChain() {
		List<JobInterceptor> chain = new ArrayList<>(this.interceptors.size() + 1);
		if (this.observationEnabled) {
			chain.add(new ObservationJobInterceptor(this.observationRegistry, this.observationConvention));
		}
		chain.addAll(this.interceptors);
		return chain.isEmpty() ? JobInterceptors.NONE : new JobInterceptors(chain);
	}

	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Return whether the container runs and the given permits are those of its current
	 * run: a part of an earlier run that outlived its stop must not act for the next.
	 */
	boolean isCurrentRun(Semaphore permits) {
		return this.running && this.permits == permits;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			checkDataModel();
			JobInterceptors interceptors = interceptorChain();
			this.workerPool.setInterceptors(interceptors);
			this.outcomes.setInterceptors(interceptors);
			String prefix = "redq-" + this.queue + "-";
			Semaphore permits = new Semaphore(capacity());
			this.permits = permits;
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
					threadFactory(prefix + "scheduler-"));
			scheduler.setRemoveOnCancelPolicy(true);
			this.scheduler = scheduler;
			this.workerPool.start(this.properties.getConcurrency(), threadFactory(prefix + "worker-"), scheduler);
			this.acknowledger.start(threadFactory(prefix + "acker-"));
			this.running = true;
			long renewal = this.leaseKeeper.renewalIntervalMillis();
			scheduler.scheduleAtFixedRate(() -> {
				this.leaseKeeper.renew(this.workerPool.executions());
				this.workerPool.writeProgress();
			}, renewal, renewal, TimeUnit.MILLISECONDS);
			long horizon = TimeUnit.NANOSECONDS.toMillis(JobPrefetch.HORIZON_NANOS);
			scheduler.scheduleWithFixedDelay(() -> this.prefetch.trim(this.workerPool), horizon, horizon,
					TimeUnit.MILLISECONDS);
			this.migrator.start(scheduler);
			// before the fetcher starts, so that it comes before the consuming event
			publish(new ContainerStartedEvent(this, this.queue));
			this.fetcher.start(permits, threadFactory(prefix + "fetcher-"));
			logger.info("Started job listener container for queue '" + this.queue + "' with jobs "
					+ this.handlers.keySet());
		}
	}

	/**
	 * Called by the fetcher when Redis answered the first reservation of a run.
	 */
	void consuming(Semaphore permits) {
		if (isCurrentRun(permits)) {
			publish(new ContainerConsumingEvent(this, this.queue));
		}
	}

	private void publish(ApplicationEvent event) {
		try {
			this.eventPublisher.publishEvent(event);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not publish " + event, ex);
		}
	}

	/**
	 * Refuse to start on a queue kept in a newer data model, rather than fail at every
	 * script call. Redis out of reach does not stop a start: the container waits for it,
	 * and every script checks the model again.
	 */
	private void checkDataModel() {
		try {
			this.operations.checkDataModel(this.queue);
		}
		catch (DataModelMismatchException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the data model of queue '" + this.queue
					+ "' at start, every script checks it: " + ex);
		}
	}

	@Override
	public void stop() {
		stopGracefully();
	}

	@Override
	public void stop(Runnable callback) {
		if (!this.running) {
			callback.run();
			return;
		}
		threadFactory("redq-" + this.queue + "-stopper-").newThread(() -> {
			try {
				stopGracefully();
			}
			finally {
				callback.run();
			}
		}).start();
	}

	/**
	 * Stop reserving, let running jobs finish within the shutdown timeout, then interrupt
	 * the rest and hand them back so that another worker gets them at once.
	 */
	private void stopGracefully() {
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			this.fetcher.closeWakeUpConnection();
			Semaphore permits = this.permits;
			boolean finished = false;
			long deadline = System.nanoTime() + this.properties.getShutdownTimeout().toNanos();
			try {
				// the fetcher ends first, so that nothing is reserved after this
				this.fetcher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
				finished = permits.tryAcquire(capacity(), Math.max(0, deadline - System.nanoTime()),
						TimeUnit.NANOSECONDS);
				if (finished) {
					permits.release(capacity());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (!finished) {
				this.workerPool.releaseRunningJobs(this.properties.getShutdownTimeout());
			}
			this.acknowledger.stop();
			this.scheduler.shutdownNow();
			this.workerPool.stop();
			logger.info("Stopped job listener container for queue '" + this.queue + "'");
		}
		publish(new ContainerStoppedEvent(this, this.queue));
	}

	private int capacity() {
		return this.properties.getConcurrency() + this.properties.getPrefetch();
	}

	private ThreadFactory threadFactory(String prefix) {
		if (this.properties.isVirtualThreads() && Runtime.version().feature() >= 21) {
			return new VirtualThreadTaskExecutor(prefix).getVirtualThreadFactory();
		}
		return new CustomizableThreadFactory(prefix);
	}

}
