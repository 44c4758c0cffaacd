package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobLimits;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.Migration;
import io.redq.queue.redis.Reservation;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobObservation;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobProcessReceiverContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Runs the jobs of one queue: reserves them in batches under a lease, runs their handlers
 * on a pool of workers, renews the leases of running jobs, acknowledges completed jobs in
 * batches, retries failed ones with backoff and moves those out of attempts to dead.
 *
 * <p>
 * An idle container blocks on the queue's wake-up key rather than polling; dispatches
 * wake it. The container also runs the queue's migrator, which sleeps until the next
 * delayed job is due or the next lease expires and then moves them, so several
 * application instances may run it at once.
 *
 * <p>
 * Containers are not beans: the {@code JobListenerRegistry} creates, starts and stops
 * them.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobListenerContainer implements SmartLifecycle {

	/** The phase containers start in: late, so they start last and stop first. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 100;

	private static final int MAX_ERROR_LENGTH = 4000;

	/**
	 * How long a job waits when its exclusive key is taken or a running limit is reached,
	 * unless the run that holds the gate wakes it earlier by leaving: the fallback for a
	 * holder that never leaves (its gate expires with its lease).
	 */
	private static final Duration RECHECK_DELAY = Duration.ofSeconds(1);

	/**
	 * How far ahead a container reserves: only jobs its workers would start within this
	 * time at the recent job duration, so that long jobs never wait here while another
	 * instance has a free worker.
	 */
	private static final long PREFETCH_HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private static final SpelExpressionParser EXPRESSION_PARSER = new SpelExpressionParser();

	private static final EvaluationContext EXCLUSIVE_KEY_CONTEXT = SimpleEvaluationContext.forReadOnlyDataBinding()
		.withInstanceMethods()
		.build();

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final ListenerOperations operations;

	private final JsonMapper jsonMapper;

	private final Map<String, JobHandler> handlers;

	private final Map<String, Expression> exclusiveKeys = new LinkedHashMap<>();

	private final ContainerProperties properties;

	private JobMetrics metrics = JobMetrics.NONE;

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobProcessObservationConvention observationConvention;

	private final Object lifecycleMonitor = new Object();

	private final Map<String, Execution> inFlight = new ConcurrentHashMap<>();

	private final Acknowledger acknowledger = new Acknowledger();

	private final Migrator migrator = new Migrator();

	private volatile boolean running;

	/** Moving average of how long handlers ran, -1 until one finished. */
	private volatile long averageJobNanos = -1;

	/**
	 * One permit per reserved job, running or waiting for a worker: concurrency plus
	 * prefetch. Each start creates new ones.
	 */
	private volatile @Nullable Semaphore permits;

	private @Nullable ThreadPoolExecutor workers;

	private @Nullable ScheduledExecutorService scheduler;

	private @Nullable ExecutorService ackExecutor;

	private @Nullable Thread fetcher;

	private final Object wakeUpMonitor = new Object();

	private volatile @Nullable RedisConnection wakeUpConnection;

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
		this.operations = operations;
		this.jsonMapper = jsonMapper;
		this.handlers = new LinkedHashMap<>();
		for (JobHandler handler : handlers) {
			Assert.state(this.handlers.put(handler.getDefinition().name(), handler) == null,
					() -> "Two handlers for job '" + handler.getDefinition().name() + "'");
			String exclusiveKey = handler.getDefinition().limits().exclusiveKey();
			if (exclusiveKey != null) {
				this.exclusiveKeys.put(handler.getDefinition().name(), EXPRESSION_PARSER.parseExpression(exclusiveKey));
			}
		}
		this.properties = new ContainerProperties(properties);
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
		this.metrics = metrics;
	}

	/**
	 * Set whether each handler call is observed with the {@link ObservationRegistry}, as
	 * {@link JobObservation#PROCESS}, in the trace whose context the job's headers carry.
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

	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			String prefix = "redq-" + this.queue + "-";
			Semaphore permits = new Semaphore(capacity());
			this.permits = permits;
			int concurrency = this.properties.getConcurrency();
			// the work queue holds the prefetched jobs; permits bound it
			this.workers = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
					new LinkedBlockingDeque<>(), threadFactory(prefix + "worker-", false));
			this.scheduler = new ScheduledThreadPoolExecutor(1, threadFactory(prefix + "scheduler-", false));
			((ScheduledThreadPoolExecutor) this.scheduler).setRemoveOnCancelPolicy(true);
			this.ackExecutor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
					threadFactory(prefix + "acker-", false));
			this.running = true;
			long renewal = Math.max(10, this.properties.getLeaseTime().toMillis() / 3);
			this.scheduler.scheduleAtFixedRate(this::renewLeases, renewal, renewal, TimeUnit.MILLISECONDS);
			long horizon = TimeUnit.NANOSECONDS.toMillis(PREFETCH_HORIZON_NANOS);
			this.scheduler.scheduleWithFixedDelay(this::trimPrefetch, horizon, horizon, TimeUnit.MILLISECONDS);
			this.migrator.start();
			this.fetcher = threadFactory(prefix + "fetcher-", false).newThread(() -> fetch(permits));
			this.fetcher.start();
			logger.info("Started job listener container for queue '" + this.queue + "' with jobs "
					+ this.handlers.keySet());
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
		threadFactory("redq-" + this.queue + "-stopper-", false).newThread(() -> {
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
			closeWakeUpConnection();
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
				releaseRunningJobs();
			}
			// let an acknowledgement in flight finish rather than interrupt it, then send
			// the rest
			this.ackExecutor.shutdown();
			awaitTermination(this.ackExecutor);
			this.acknowledger.flushNow();
			this.scheduler.shutdownNow();
			this.workers.shutdownNow();
			logger.info("Stopped job listener container for queue '" + this.queue + "'");
		}
	}

	private void releaseRunningJobs() {
		List<Lease> running = new ArrayList<>();
		List<Lease> waiting = new ArrayList<>();
		for (Execution execution : this.inFlight.values()) {
			if (execution.settle()) {
				// a prefetched job that no worker took never started: it gets its
				// attempt back
				((execution.thread != null) ? running : waiting).add(execution.job.lease());
				execution.interrupt();
			}
		}
		if (!running.isEmpty()) {
			logger.warn("Shutdown timeout of " + this.properties.getShutdownTimeout() + " passed; interrupted "
					+ running.size() + " running job(s) of queue '" + this.queue + "' and handed them back");
		}
		handBack(running, false);
		handBack(waiting, true);
	}

	private void handBack(List<Lease> leases, boolean undoAttempt) {
		if (leases.isEmpty()) {
			return;
		}
		try {
			this.operations.release(this.queue, leases, undoAttempt);
		}
		catch (RuntimeException ex) {
			logger.error("Could not hand back " + leases.size() + " job(s) of queue '" + this.queue
					+ "'; they may run again once their lease expires", ex);
		}
	}

	// -- reserving

	/**
	 * Reserve jobs while this run of the container lasts: a fetcher that outlived a stop
	 * (it ended after the shutdown timeout) ends instead of joining the next run. The
	 * stop closes the wake-up connection, not the fetcher, as a new run may have opened
	 * its own by then.
	 */
	private void fetch(Semaphore permits) {
		int failures = 0;
		while (isCurrent(permits)) {
			try {
				int capacity = acquirePermits(permits);
				if (capacity == 0) {
					continue;
				}
				if (!isCurrent(permits)) {
					permits.release(capacity);
					break;
				}
				Reservation reservation;
				try {
					reservation = this.operations.reserve(this.queue, capacity, this.properties.getLeaseTime());
				}
				catch (RuntimeException ex) {
					permits.release(capacity);
					throw ex;
				}
				// each reserved job keeps its permit until it finishes
				permits.release(capacity - reservation.jobs().size());
				this.migrator.wakeUpAt(reservation.redisTime(), reservation.nextDue());
				reservation.jobs().forEach((job) -> start(job, permits));
				if (reservation.jobs().isEmpty() && isCurrent(permits)) {
					this.operations.awaitWakeUp(wakeUpConnection(), this.queue, this.properties.getPollTimeout());
				}
				failures = 0;
			}
			catch (RuntimeException ex) {
				if (!isCurrent(permits)) {
					break;
				}
				closeWakeUpConnection();
				failures++;
				long pause = Math.min(2000, 100L << Math.min(failures, 5));
				logger.warn("Could not reserve jobs of queue '" + this.queue + "', retrying in " + pause + "ms: " + ex);
				sleep(pause);
			}
		}
	}

	private boolean isCurrent(Semaphore permits) {
		return this.running && this.permits == permits;
	}

	/**
	 * Wait until enough jobs finished to refill half the prefetch (or a worker is free,
	 * without prefetch), then take the free permits, at most a batch. The permits of the
	 * prefetch places not used now are withheld.
	 */
	private int acquirePermits(Semaphore permits) {
		int prefetch = currentPrefetch();
		int withheld = this.properties.getPrefetch() - prefetch;
		int refill = Math.max(1, prefetch / 2);
		try {
			if (!permits.tryAcquire(refill + withheld, 100, TimeUnit.MILLISECONDS)) {
				return 0;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 0;
		}
		int taken = refill + withheld + permits.drainPermits();
		int capacity = Math.min(taken - withheld, this.properties.getBatchSize());
		permits.release(taken - capacity);
		return capacity;
	}

	/**
	 * Return how many jobs to reserve ahead now: as many as the workers would start
	 * within {@link #PREFETCH_HORIZON_NANOS} at the recent job duration, at most the
	 * prefetch setting; none before a job finished. A worker busy with one job for longer
	 * than the horizon counts as one that starts none: jobs that turn slow stop the
	 * prefetch before the first of them finishes.
	 */
	private int currentPrefetch() {
		long average = this.averageJobNanos;
		if (average < 0) {
			return 0;
		}
		long now = System.nanoTime();
		int free = this.properties.getConcurrency();
		for (Execution execution : this.inFlight.values()) {
			long started = execution.startedNanos;
			if (started != 0 && now - started > PREFETCH_HORIZON_NANOS) {
				free--;
			}
		}
		long soon = Math.max(0, free) * PREFETCH_HORIZON_NANOS / Math.max(1, average);
		return (int) Math.min(this.properties.getPrefetch(), soon);
	}

	/**
	 * Hand back the prefetched jobs beyond what the workers would start soon, the last
	 * ones first, without using an attempt: when jobs turn slow, the jobs reserved ahead
	 * at the earlier pace go to whichever instance has a free worker instead of waiting
	 * here. Only jobs that waited longer than the horizon go, so that jobs of about the
	 * horizon's length are not handed back and reserved again as the estimate moves.
	 */
	private void trimPrefetch() {
		BlockingQueue<Runnable> waiting = this.workers.getQueue();
		int excess = waiting.size() - currentPrefetch();
		if (excess <= 0 || !this.running) {
			return;
		}
		List<Start> candidates = new ArrayList<>(excess);
		long now = System.nanoTime();
		Iterator<Runnable> latestFirst = ((LinkedBlockingDeque<Runnable>) waiting).descendingIterator();
		while (candidates.size() < excess && latestFirst.hasNext()) {
			Start start = (Start) latestFirst.next();
			if (now - start.queuedNanos > PREFETCH_HORIZON_NANOS) {
				candidates.add(start);
			}
		}
		List<Lease> handedBack = new ArrayList<>(candidates.size());
		for (Start start : candidates) {
			// a worker may have taken it meanwhile
			if (this.workers.remove(start) && withdraw(start.execution)) {
				handedBack.add(start.execution.job.lease());
			}
		}
		if (!handedBack.isEmpty()) {
			logger.debug("Handing back " + handedBack.size() + " prefetched job(s) of queue '" + this.queue
					+ "' that would not start soon");
			handBack(handedBack, true);
		}
	}

	private void recordDuration(long nanos) {
		long average = this.averageJobNanos;
		// races between workers lose an update at worst
		this.averageJobNanos = (average < 0) ? nanos : average + (nanos - average) / 8;
	}

	private int capacity() {
		return this.properties.getConcurrency() + this.properties.getPrefetch();
	}

	private void start(ReservedJob job, Semaphore permits) {
		Execution execution = new Execution(job, permits);
		this.inFlight.put(job.token(), execution);
		try {
			this.workers.execute(new Start(execution));
		}
		catch (RejectedExecutionException ex) {
			// reserved while the container stopped
			if (withdraw(execution)) {
				handBack(List.of(job.lease()), true);
			}
		}
	}

	/**
	 * Forget a reserved job that no worker will start, freeing its place.
	 * @return whether its lease is still to be handed back (it was not lost meanwhile)
	 */
	private boolean withdraw(Execution execution) {
		this.inFlight.remove(execution.job.token());
		execution.permits.release();
		return execution.settle();
	}

	private RedisConnection wakeUpConnection() {
		synchronized (this.wakeUpMonitor) {
			// a stop closes the connection to end the wait: none opens after it
			Assert.state(this.running, "Container stopped");
			RedisConnection connection = this.wakeUpConnection;
			if (connection == null) {
				connection = this.operations.openWakeUpConnection();
				this.wakeUpConnection = connection;
			}
			return connection;
		}
	}

	private void closeWakeUpConnection() {
		RedisConnection connection;
		synchronized (this.wakeUpMonitor) {
			connection = this.wakeUpConnection;
			this.wakeUpConnection = null;
		}
		if (connection != null) {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close wake-up connection", ex);
			}
		}
	}

	// -- running

	private void run(Execution execution) {
		execution.thread = Thread.currentThread();
		try {
			if (!this.running) {
				// prefetched, and the container stops before it started
				if (execution.settle()) {
					handBack(List.of(execution.job.lease()), true);
				}
				return;
			}
			if (execution.isSettled()) {
				// its lease was lost while it waited: it may run elsewhere already
				return;
			}
			JobEnvelope envelope;
			try {
				envelope = this.jsonMapper.readValue(execution.job.envelope(), JobEnvelope.class);
			}
			catch (JacksonException ex) {
				bury(execution,
						"Malformed job: its data in Redis is not a Redq job envelope: " + ex.getOriginalMessage());
				return;
			}
			if (envelope == null || envelope.job() == null) {
				bury(execution, "Malformed job: its data in Redis is not a Redq job envelope: it names no job");
				return;
			}
			JobHandler handler = this.handlers.get(envelope.job());
			if (handler == null) {
				bury(execution, "No handler for job '" + envelope.job() + "' in this application (queue '" + this.queue
						+ "' has handlers for " + this.handlers.keySet() + ")");
				return;
			}
			// set before anything can fail, so that a failure is retried as defined
			execution.resolve(envelope, handler);
			Object payload = handler.readPayload(envelope.payload());
			Gates gates = gates(handler, payload);
			if (gates != null && !admit(execution, gates)) {
				return;
			}
			execution.begin(gates);
			try {
				handle(handler, payload, execution);
			}
			finally {
				if (gates != null) {
					leaveGates(execution, gates);
				}
			}
			if (execution.settle()) {
				this.acknowledger.add(execution.job.lease());
				report(execution, JobMetrics.Outcome.COMPLETED, null);
			}
		}
		catch (Throwable ex) {
			failed(execution, ex);
		}
		finally {
			execution.end();
			if (execution.startedNanos != 0) {
				recordDuration(System.nanoTime() - execution.startedNanos);
			}
			this.inFlight.remove(execution.job.token());
			execution.finish();
			execution.permits.release();
		}
	}

	private void handle(JobHandler handler, @Nullable Object payload, Execution execution) throws Exception {
		if (!this.observationEnabled) {
			handler.handle(payload, execution);
			return;
		}
		JobObservation.PROCESS
			.observation(this.observationConvention, DefaultJobProcessObservationConvention.INSTANCE,
					() -> new JobProcessReceiverContext(execution), this.observationRegistry)
			.observeChecked(() -> handler.handle(payload, execution));
	}

	private @Nullable Gates gates(JobHandler handler, @Nullable Object payload) {
		JobLimits limits = handler.getDefinition().limits();
		if (!limits.isLimited() && this.properties.getMaxRunning() == 0) {
			return null;
		}
		String key = null;
		Expression expression = this.exclusiveKeys.get(handler.getDefinition().name());
		if (expression != null) {
			try {
				key = expression.getValue(EXCLUSIVE_KEY_CONTEXT, payload, String.class);
			}
			catch (EvaluationException ex) {
				throw new JobRejectedException("Exclusive key '" + limits.exclusiveKey() + "' of job '"
						+ handler.getDefinition().name() + "' cannot be evaluated on its payload: " + ex.getMessage(),
						ex);
			}
			if (key == null) {
				throw new JobRejectedException("Exclusive key '" + limits.exclusiveKey() + "' of job '"
						+ handler.getDefinition().name() + "' is null for this payload");
			}
		}
		return new Gates(key, handler.getDefinition().name(), limits.maxRunning(), this.properties.getMaxRunning(),
				limits.rateLimit());
	}

	private boolean admit(Execution execution, Gates gates) {
		long wait = this.operations.admit(this.queue, execution.job.lease(), gates, this.properties.getLeaseTime(),
				RECHECK_DELAY);
		if (wait == 0) {
			return true;
		}
		execution.settle();
		if (wait < 0) {
			logger.warn("Job " + execution.job.id() + " lost its lease before it started");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Job " + execution.job.id() + " waits " + wait + "ms for its limits " + gates);
		}
		return false;
	}

	private void leaveGates(Execution execution, Gates gates) {
		try {
			this.operations.leaveGates(this.queue, execution.job.lease(), gates);
		}
		catch (RuntimeException ex) {
			logger.warn(
					"Could not leave the limits of job " + execution.job.id() + "; they expire with its lease: " + ex);
		}
	}

	private void failed(Execution execution, Throwable ex) {
		if (!execution.settle()) {
			logger.debug("Job " + execution.job.id() + " failed after its outcome was settled", ex);
			return;
		}
		JobHandler handler = execution.handler;
		boolean retry = !(ex instanceof JobRejectedException) && handler != null
				&& execution.job.attempt() < execution.maxAttempts;
		String error = describe(ex);
		Duration delay = retry ? handler.getDefinition().backoff().delayAfter(execution.job.attempt()) : null;
		if (retry) {
			logger.warn("Job " + execution.job.id() + " (" + handler.getDefinition().name() + ") failed on attempt "
					+ execution.job.attempt() + " of " + execution.maxAttempts + ", retrying in " + delay + ": "
					+ error);
		}
		else {
			logger.error("Job " + execution.job.id() + " failed on attempt " + execution.job.attempt()
					+ " and is dead: " + error, ex);
		}
		report(execution, retry ? JobMetrics.Outcome.RETRIED : JobMetrics.Outcome.DEAD, ex);
		recordFailure(execution, error, delay);
	}

	private void bury(Execution execution, String reason) {
		if (execution.settle()) {
			logger.error("Job " + execution.job.id() + " of queue '" + this.queue + "' is dead: " + reason);
			report(execution, JobMetrics.Outcome.DEAD, new JobRejectedException(reason));
			recordFailure(execution, reason, null);
		}
	}

	private void report(Execution execution, JobMetrics.Outcome outcome, @Nullable Throwable error) {
		JobHandler handler = execution.handler;
		String job = (handler != null) ? handler.getDefinition().name() : "unknown";
		Duration processing = (execution.startedNanos != 0)
				? Duration.ofNanos(System.nanoTime() - execution.startedNanos) : Duration.ZERO;
		try {
			this.metrics.processed(this.queue, job, outcome, error, processing, execution.wait);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not report the outcome of job " + execution.job.id(), ex);
		}
	}

	private void recordFailure(Execution execution, String error, @Nullable Duration retryDelay) {
		try {
			if (!this.operations.fail(this.queue, execution.job.lease(), error, retryDelay)) {
				logger.warn("Failure of job " + execution.job.id() + " refused: its lease was lost to another worker");
			}
		}
		catch (RuntimeException ex) {
			logger.error("Could not record the failure of job " + execution.job.id()
					+ "; it may run again once its lease expires", ex);
		}
	}

	private void timedOut(Execution execution) {
		if (execution.settle()) {
			execution.leaseLost = true;
			execution.interrupt();
			JobDefinition definition = execution.handler.getDefinition();
			Duration timeout = execution.timeout;
			String error = "Timed out after " + timeout + ": the handler was interrupted";
			boolean retry = execution.job.attempt() < execution.maxAttempts;
			Duration delay = retry ? definition.backoff().delayAfter(execution.job.attempt()) : null;
			logger.warn("Job " + execution.job.id() + " (" + definition.name() + ") timed out after " + timeout
					+ " on attempt " + execution.job.attempt() + (retry ? ", retrying in " + delay : " and is dead"));
			report(execution, retry ? JobMetrics.Outcome.RETRIED : JobMetrics.Outcome.DEAD,
					new TimeoutException(error));
			recordFailure(execution, error, delay);
		}
	}

	private void renewLeases() {
		List<Execution> executions = new ArrayList<>(this.inFlight.values());
		executions.removeIf(Execution::isSettled);
		if (executions.isEmpty()) {
			return;
		}
		try {
			List<Lease> leases = executions.stream().map((execution) -> execution.job.lease()).toList();
			Set<String> lost = new HashSet<>(
					this.operations.extend(this.queue, leases, this.properties.getLeaseTime()));
			for (Execution execution : executions) {
				if (lost.contains(execution.job.id())) {
					execution.leaseLost();
				}
				else if (execution.gates != null) {
					this.operations.holdGates(this.queue, execution.job.lease(), execution.gates,
							this.properties.getLeaseTime());
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not renew the leases of " + executions.size() + " running job(s) of queue '" + this.queue
					+ "': " + ex);
		}
	}

	private static String describe(Throwable ex) {
		StringBuilder error = new StringBuilder(ex.getClass().getName());
		if (ex.getMessage() != null) {
			error.append(": ").append(ex.getMessage());
		}
		for (Throwable cause = ex.getCause(); cause != null && cause != ex; cause = cause.getCause()) {
			error.append("; caused by ").append(cause.getClass().getName());
			if (cause.getMessage() != null) {
				error.append(": ").append(cause.getMessage());
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return (error.length() > MAX_ERROR_LENGTH) ? error.substring(0, MAX_ERROR_LENGTH) : error.toString();
	}

	// -- threads

	private ThreadFactory threadFactory(String prefix, boolean daemon) {
		if (useVirtualThreads()) {
			return new VirtualThreadTaskExecutor(prefix).getVirtualThreadFactory();
		}
		CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
		factory.setDaemon(daemon);
		return factory;
	}

	private boolean useVirtualThreads() {
		return this.properties.isVirtualThreads() && Runtime.version().feature() >= 21;
	}

	private static void awaitTermination(ExecutorService executor) {
		try {
			executor.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A reserved job waiting for a worker: the worker queue's entries, so that
	 * {@link #trimPrefetch()} can find the jobs it hands back.
	 */
	private final class Start implements Runnable {

		private final Execution execution;

		private final long queuedNanos = System.nanoTime();

		Start(Execution execution) {
			this.execution = execution;
		}

		@Override
		public void run() {
			JobListenerContainer.this.run(this.execution);
		}

	}

	/**
	 * One attempt of a job on this container; exactly one of completion, failure, timeout
	 * or hand-back settles it.
	 */
	private final class Execution implements JobContext {

		private final ReservedJob job;

		/**
		 * The places of the container run that reserved the job: a handler that outlives
		 * a stop frees its place there, not in the run after a restart.
		 */
		private final Semaphore permits;

		private final AtomicBoolean settled = new AtomicBoolean();

		private volatile @Nullable Thread thread;

		// not this: handlers see the execution as their JobContext and might lock it
		private final Object interruptMonitor = new Object();

		// guarded by interruptMonitor
		private boolean finished;

		private volatile @Nullable JobEnvelope envelope;

		private volatile @Nullable JobHandler handler;

		private volatile @Nullable Gates gates;

		private volatile int maxAttempts;

		private volatile Duration timeout = Duration.ZERO;

		private volatile boolean leaseLost;

		private volatile long startedNanos;

		private volatile Duration wait = Duration.ZERO;

		private volatile @Nullable ScheduledFuture<?> timeoutTask;

		Execution(ReservedJob job, Semaphore permits) {
			this.job = job;
			this.permits = permits;
		}

		void resolve(JobEnvelope envelope, JobHandler handler) {
			this.envelope = envelope;
			this.handler = handler;
			// a job written by another program may leave these out: the handler's
			// settings apply
			JobDefinition definition = handler.getDefinition();
			this.maxAttempts = (envelope.maxAttempts() != null) ? envelope.maxAttempts() : definition.maxAttempts();
			this.timeout = (envelope.timeout() != null) ? Duration.ofMillis(envelope.timeout()) : definition.timeout();
		}

		void begin(@Nullable Gates gates) {
			this.gates = gates;
			this.startedNanos = System.nanoTime();
			Long availableAt = this.envelope.availableAt();
			this.wait = (availableAt != null) ? Duration.ofMillis(Math.max(0, System.currentTimeMillis() - availableAt))
					: Duration.ZERO;
			if (!this.timeout.isZero()) {
				this.timeoutTask = JobListenerContainer.this.scheduler.schedule(() -> timedOut(this),
						this.timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
		}

		void end() {
			ScheduledFuture<?> timeoutTask = this.timeoutTask;
			if (timeoutTask != null) {
				timeoutTask.cancel(false);
			}
		}

		boolean settle() {
			return this.settled.compareAndSet(false, true);
		}

		boolean isSettled() {
			return this.settled.get();
		}

		void interrupt() {
			synchronized (this.interruptMonitor) {
				Thread thread = this.thread;
				if (thread != null && !this.finished) {
					thread.interrupt();
				}
			}
		}

		/**
		 * Called by the worker when it is done with the job: a timeout or stop that
		 * interrupted it after the handler returned must not reach the next job of the
		 * same thread.
		 */
		void finish() {
			synchronized (this.interruptMonitor) {
				this.finished = true;
				Thread.interrupted();
			}
		}

		void leaseLost() {
			this.leaseLost = true;
			if (settle()) {
				report(this, JobMetrics.Outcome.LEASE_LOST, null);
				logger.warn("Job " + this.job.id() + " lost its lease (this worker stalled past it, or another worker "
						+ "holds the job now); its outcome here will be discarded");
			}
		}

		@Override
		public String getId() {
			return this.job.id();
		}

		@Override
		public String getJobName() {
			return this.envelope.job();
		}

		@Override
		public String getQueue() {
			return JobListenerContainer.this.queue;
		}

		@Override
		public int getAttempt() {
			return this.job.attempt();
		}

		@Override
		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		@Override
		public Instant getCreatedAt() {
			Long createdAt = this.envelope.createdAt();
			return (createdAt != null) ? Instant.ofEpochMilli(createdAt) : Instant.EPOCH;
		}

		@Override
		public Instant getAvailableAt() {
			Long availableAt = this.envelope.availableAt();
			return (availableAt != null) ? Instant.ofEpochMilli(availableAt) : getCreatedAt();
		}

		@Override
		public Map<String, String> getHeaders() {
			Map<String, String> headers = this.envelope.headers();
			return (headers != null) ? headers : Map.of();
		}

		@Override
		public boolean isLeaseLost() {
			return this.leaseLost;
		}

		@Override
		public boolean extendLease(Duration duration) {
			if (this.leaseLost) {
				return false;
			}
			if (!JobListenerContainer.this.operations
				.extend(JobListenerContainer.this.queue, List.of(this.job.lease()), duration)
				.isEmpty()) {
				leaseLost();
			}
			return !this.leaseLost;
		}

	}

	/**
	 * Acknowledges completed jobs in batches: while one acknowledgement is in flight, the
	 * next ones gather.
	 */
	private final class Acknowledger {

		private final ConcurrentLinkedQueue<Lease> pending = new ConcurrentLinkedQueue<>();

		private final AtomicBoolean scheduled = new AtomicBoolean();

		void add(Lease lease) {
			this.pending.add(lease);
			if (this.scheduled.compareAndSet(false, true)) {
				try {
					JobListenerContainer.this.ackExecutor.execute(this::flush);
				}
				catch (RejectedExecutionException ex) {
					// stopping: acknowledge on this thread
					flushNow();
				}
			}
		}

		private void flush() {
			do {
				this.scheduled.set(false);
				flushNow();
			}
			while (!this.pending.isEmpty() && this.scheduled.compareAndSet(false, true));
		}

		void flushNow() {
			List<Lease> batch = new ArrayList<>();
			for (Lease lease = this.pending.poll(); lease != null; lease = this.pending.poll()) {
				batch.add(lease);
				if (batch.size() == 1000 || this.pending.isEmpty()) {
					ack(batch);
					batch = new ArrayList<>();
				}
			}
		}

		private void ack(List<Lease> batch) {
			try {
				for (String id : JobListenerContainer.this.operations.ack(JobListenerContainer.this.queue, batch)) {
					logger.warn("Late acknowledgement of job " + id + " refused: its lease expired and the job was "
							+ "handed to another worker");
				}
			}
			catch (RuntimeException ex) {
				logger.error("Could not acknowledge " + batch.size() + " job(s) of queue '"
						+ JobListenerContainer.this.queue + "'; they may run again once their leases expire", ex);
			}
		}

	}

	/**
	 * Moves the queue's due delayed jobs and expired leases. Sleeps until the next of
	 * them is due (or the poll timeout passes), and is woken earlier when a reservation
	 * learns of an earlier due time. With nothing delayed, reserved or dead it sleeps
	 * until a reservation reports a due time, so an idle queue costs only the fetcher's
	 * wait.
	 */
	private final class Migrator {

		private @Nullable ScheduledFuture<?> next;

		private long nextRunNanos;

		synchronized void start() {
			// a restarted container starts afresh: the last run's schedule died
			// with its scheduler
			this.next = null;
			scheduleIn(0);
		}

		/**
		 * Make sure the migrator runs by the given due time.
		 * @param redisTime the Redis clock now
		 * @param nextDue the due time on the Redis clock, or -1 for none
		 */
		void wakeUpAt(long redisTime, long nextDue) {
			if (nextDue >= 0) {
				scheduleIn(Math.max(0, nextDue - redisTime));
			}
		}

		/**
		 * Schedule a run in {@code delayMillis}, unless one is scheduled sooner already.
		 */
		private synchronized void scheduleIn(long delayMillis) {
			long runAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
			if (!JobListenerContainer.this.running || (this.next != null && runAt - this.nextRunNanos >= 0)) {
				return;
			}
			if (this.next != null) {
				this.next.cancel(false);
			}
			this.nextRunNanos = runAt;
			this.next = JobListenerContainer.this.scheduler.schedule(this::run, delayMillis, TimeUnit.MILLISECONDS);
		}

		private void run() {
			synchronized (this) {
				// from now on a wake-up schedules another run: this one may read Redis
				// before the job that caused it
				this.next = null;
			}
			long pollTimeout = JobListenerContainer.this.properties.getPollTimeout().toMillis();
			long delay;
			try {
				Migration migration = JobListenerContainer.this.operations.migrate(JobListenerContainer.this.queue);
				if (migration.isPartial(ListenerOperations.MIGRATION_BATCH_SIZE)) {
					delay = 0;
				}
				else if (migration.nextDue() >= 0) {
					delay = Math.min(pollTimeout, Math.max(1, migration.nextDue() - migration.redisTime()));
				}
				else {
					// nothing is delayed, reserved or dead: the fetcher's next
					// reservation, at the latest after its poll timeout, tells when
					// there is work again
					return;
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not migrate jobs of queue '" + JobListenerContainer.this.queue + "': " + ex);
				delay = Math.min(1000, pollTimeout);
			}
			scheduleIn(delay);
		}

	}

}
