package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.Timer;
import io.redq.queue.support.JobQueueLifecycle;
import io.redq.queue.support.micrometer.DefaultJobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobObservation;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.util.Assert;

/**
 * {@link JobDispatcher} that enqueues jobs in the queues of a
 * {@link RedisJobQueueOperations}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class RedisJobDispatcher implements JobDispatcher, JobQueueLifecycle {

	/** The default largest envelope accepted, in bytes: 1 MiB. */
	public static final long DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;

	/**
	 * The default re-send window: two minutes, longer than Lettuce's default command
	 * timeout of one minute.
	 */
	public static final Duration DEFAULT_RESEND_WINDOW = ResendProtection.DEFAULT_WINDOW;

	/**
	 * The default longest wait for Redis to take a dispatch: five seconds.
	 */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * The default time a batch's state is kept after it ended: one day.
	 */
	public static final Duration DEFAULT_BATCH_LINGER = Duration.ofDays(1);

	private final RedisJobQueueOperations operations;

	private final EnqueueOperations enqueueOperations;

	private final JobPreparer preparer;

	private Duration timeout = DEFAULT_TIMEOUT;

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobDispatchObservationConvention observationConvention;

	private List<DispatchInterceptor> interceptors = List.of();

	private final ResendProtection resendProtection;

	private final DispatchCoalescer coalescer;

	private final BatchOperations batchOperations;

	private final ChainOperations chainOperations;

	private final WorkflowDispatcher workflows;

	/**
	 * Create an instance.
	 * @param operations the queues to enqueue in
	 * @param definitions the known jobs, usually the {@code JobCatalog}
	 * @param jsonMapper the mapper that writes payloads as JSON
	 */
	public RedisJobDispatcher(RedisJobQueueOperations operations, JobDefinitions definitions, JsonMapper jsonMapper) {
		this.operations = operations;
		this.enqueueOperations = operations.getEnqueueOperations();
		this.resendProtection = operations.getStore().getResendProtection();
		this.preparer = new JobPreparer(definitions, jsonMapper);
		this.coalescer = new DispatchCoalescer(this.enqueueOperations, (job) -> dispatched(List.of(job)));
		this.batchOperations = operations.getBatchOperations();
		this.chainOperations = this.batchOperations.chains();
		this.workflows = new WorkflowDispatcher(this, this.preparer, operations);
	}

	/**
	 * Return the dispatcher's workflow half, which prepares batches and chains and sends
	 * them: for a workflow prepared now and sent later, such as one dispatched inside a
	 * transaction.
	 * @return the workflow dispatcher
	 */
	public WorkflowDispatcher getWorkflowDispatcher() {
		return this.workflows;
	}

	/**
	 * Set how long a batch's or a chain's state is kept after it ended, for reads: its
	 * counts and dead members, or its steps. Members still running after a batch failed
	 * fast change its counts until then.
	 * <p>
	 * Default {@link #DEFAULT_BATCH_LINGER}.
	 * @param batchLinger how long to keep an ended batch
	 */
	public void setBatchLinger(Duration batchLinger) {
		Assert.isTrue(batchLinger.toMillis() > 0, () -> "batchLinger must be at least 1 ms; got " + batchLinger);
		this.workflows.setBatchLinger(batchLinger);
	}

	/**
	 * Set the largest job envelope (payload and metadata as JSON) accepted, in bytes;
	 * larger ones are rejected.
	 * <p>
	 * Default 1 MiB.
	 * @param maxPayloadSize the limit in bytes
	 */
	public void setMaxPayloadSize(long maxPayloadSize) {
		this.preparer.setMaxPayloadSize(maxPayloadSize);
	}

	/**
	 * Set how long a dispatch waits at most for Redis to take its job (for
	 * {@link #dispatchAll}, each call of up to 1,000 jobs), so that a dispatch fails fast
	 * while Redis is down rather than blocking its caller for the Redis command timeout.
	 * A dispatch that times out throws (or, from {@link #dispatchAsync(JobRequest)},
	 * completes exceptionally with) a {@link DispatchTimeoutException}. A job that still
	 * waited behind its queue's call in flight is taken back and not sent; a call that
	 * was sent is not cancelled, and its jobs may still be enqueued if Redis takes it
	 * before the Redis command timeout. The wait for replicas, when configured, comes on
	 * top.
	 * <p>
	 * {@link #cancel}, {@link #cancelTimer} and {@link #reschedule} wait as long at most,
	 * then throw a {@link org.springframework.dao.QueryTimeoutException}; their call is
	 * not cancelled either.
	 * <p>
	 * Default {@link #DEFAULT_TIMEOUT}.
	 * @param timeout the timeout
	 */
	public void setTimeout(Duration timeout) {
		Assert.isTrue(timeout.toMillis() > 0, () -> "timeout must be at least 1 ms; got " + timeout);
		this.timeout = timeout;
		this.coalescer.setTimeout(timeout);
	}

	/**
	 * Set how long closing the dispatcher waits for Redis to take the asynchronous
	 * dispatches still pending; those it has not taken by then fail.
	 * <p>
	 * Default 10 seconds.
	 * @param closeTimeout the timeout
	 */
	public void setCloseTimeout(Duration closeTimeout) {
		Assert.isTrue(!closeTimeout.isNegative() && !closeTimeout.isZero(), "closeTimeout must be positive");
		this.coalescer.setCloseTimeout(closeTimeout);
	}

	/**
	 * Set whether concurrent synchronous dispatches of a queue share script calls as the
	 * asynchronous ones always do: while a call for a queue is in flight, the
	 * {@link #dispatch(JobRequest)} calls for that queue that arrive meanwhile are sent
	 * together in the next script call, once its reply came. A lone dispatch is sent at
	 * once. Each job keeps its own result, failure and timeout, and one thread's
	 * dispatches keep their order. When off, each synchronous dispatch is a script call
	 * of its own.
	 * <p>
	 * Default {@code true}: on a quiet machine, single dispatches from 8 threads cost
	 * Redis less than half the time per job and ran faster, with lower latency, whether
	 * workers consumed them at once or not (see the benchmarks' HISTORY).
	 * @param coalescing whether dispatches share script calls
	 */
	public void setCoalescing(boolean coalescing) {
		this.coalescer.setEnabled(coalescing);
	}

	/**
	 * Set the most jobs of a script call that concurrent dispatches share.
	 * <p>
	 * Default 1,000, the most jobs of one script call.
	 * @param maxJobs the most jobs, from 1 to 1,000
	 * @see #setCoalescing(boolean)
	 */
	public void setCoalescingMaxJobs(int maxJobs) {
		this.coalescer.setMaxJobs(maxJobs);
	}

	/**
	 * Set the most characters of job JSON in a script call that concurrent dispatches
	 * share (bytes, for JSON in ASCII); a job larger than that goes alone.
	 * <p>
	 * Default 1 Mi.
	 * @param maxSize the most characters
	 * @see #setCoalescing(boolean)
	 */
	public void setCoalescingMaxSize(long maxSize) {
		this.coalescer.setMaxSize(maxSize);
	}

	/**
	 * Set how many script calls of a queue's synchronous dispatches may be in flight at
	 * once while coalescing: a synchronous dispatch that arrives while fewer are in
	 * flight is sent at once (with those waiting) instead of waiting for a reply. A queue
	 * with an asynchronous dispatch waiting or in flight has one call in flight at most,
	 * so that one thread's asynchronous dispatches keep their order.
	 * <p>
	 * Default 2: one call of a queue fills while the other is in flight, where one alone
	 * made callers that dispatch again at once wait about two round trips, and four left
	 * little to share (see the benchmarks' HISTORY).
	 * @param maxInFlight the most calls in flight, at least 1
	 * @see #setCoalescing(boolean)
	 */
	public void setCoalescingMaxInFlight(int maxInFlight) {
		this.coalescer.setMaxInFlight(maxInFlight);
	}

	/**
	 * Set how long Redis remembers the reply of a call that changes a queue (each
	 * dispatch script call of up to 1,000 jobs, and the operations' cancel, reschedule,
	 * retry or delete of dead jobs and purge on the same queues), so that the same call
	 * re-sent by Lettuce after a reconnect changes nothing, even when its jobs ran
	 * meanwhile. Lettuce re-sends only commands that have not timed out: the window must
	 * be longer than the Redis command timeout ({@code spring.data.redis.timeout}, by
	 * default Lettuce's one minute). Redis keeps one reply per call in flight at once
	 * (see {@link ResendProtection}), not one per call.
	 * <p>
	 * Default {@link #DEFAULT_RESEND_WINDOW}.
	 * @param resendWindow the window
	 */
	public void setResendWindow(Duration resendWindow) {
		this.resendProtection.setWindow(resendWindow);
	}

	/**
	 * Set whether each dispatched job is observed with the {@link ObservationRegistry},
	 * as {@link JobObservation#DISPATCH}, so that a tracer writes the trace context into
	 * the job's headers.
	 * <p>
	 * Default {@code false}.
	 * @param observationEnabled whether to observe dispatches
	 */
	public void setObservationEnabled(boolean observationEnabled) {
		this.observationEnabled = observationEnabled;
		buildInterceptorChain();
	}

	/**
	 * Set the registry that observes dispatches when observation is enabled.
	 * <p>
	 * Default {@link ObservationRegistry#NOOP}.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
		buildInterceptorChain();
	}

	/**
	 * Set the convention that names and tags the dispatch observations.
	 * <p>
	 * Default {@code null}: {@link DefaultJobDispatchObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable JobDispatchObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
		buildInterceptorChain();
	}

	/**
	 * Set the interceptors of every dispatched job, sorted by
	 * {@link org.springframework.core.Ordered} or
	 * {@link org.springframework.core.annotation.Order @Order}; interceptors without an
	 * order keep the given order, after the ordered ones. The dispatch observation, when
	 * enabled, comes first.
	 * <p>
	 * Default none.
	 * @param interceptors the interceptors
	 */
	public void setInterceptors(List<DispatchInterceptor> interceptors) {
		Assert.noNullElements(interceptors, "interceptors must not contain null");
		List<DispatchInterceptor> sorted = new ArrayList<>(interceptors);
		AnnotationAwareOrderComparator.sort(sorted);
		this.interceptors = List.copyOf(sorted);
		buildInterceptorChain();
	}

	private void buildInterceptorChain() {
		List<DispatchInterceptor> chain = new ArrayList<>(this.interceptors.size() + 1);
		if (this.observationEnabled) {
			chain.add(new ObservationDispatchInterceptor(this.observationRegistry, this.observationConvention));
		}
		chain.addAll(this.interceptors);
		// the observation, when enabled, then the interceptors
		this.preparer.setInterceptors(chain.isEmpty() ? DispatchInterceptors.NONE : new DispatchInterceptors(chain));
	}

	@Override
	public List<DispatchResult> dispatchAll(Collection<JobRequest> requests) {
		List<PreparedJob> prepared = new ArrayList<>(requests.size());
		try {
			for (JobRequest request : requests) {
				prepared.add(prepare(request));
			}
		}
		catch (RuntimeException ex) {
			prepared.forEach((job) -> job.failed(ex));
			throw ex;
		}
		return sendAll(prepared, null);
	}

	/**
	 * Send prepared jobs, one script call per queue and 1,000 jobs, as members of a batch
	 * when given one; tell the interceptors how each ended.
	 * @param prepared the jobs
	 * @param batchId the batch of the jobs, or {@code null} for none
	 * @return what happened to each job, in order
	 */
	List<DispatchResult> sendAll(List<PreparedJob> prepared, @Nullable String batchId) {
		Map<String, List<PreparedJob>> byQueue = new LinkedHashMap<>();
		for (PreparedJob job : prepared) {
			byQueue.computeIfAbsent(job.queue(), (queue) -> new ArrayList<>()).add(job);
		}
		// by identity: two equal requests are two jobs
		Map<PreparedJob, DispatchResult> results = new IdentityHashMap<>(prepared.size());
		try {
			for (Iterator<List<PreparedJob>> queues = byQueue.values().iterator(); queues.hasNext();) {
				List<PreparedJob> jobs = queues.next();
				List<DispatchResult> sent = send(jobs, batchId);
				// in Redis: not failed if a later queue's call fails
				queues.remove();
				for (int i = 0; i < jobs.size(); i++) {
					results.put(jobs.get(i), sent.get(i));
				}
			}
		}
		catch (RuntimeException ex) {
			byQueue.values().forEach((jobs) -> jobs.forEach((job) -> job.failed(ex)));
			throw ex;
		}
		return prepared.stream().map(results::get).toList();
	}

	/**
	 * Dispatch a job. With {@link #setCoalescing(boolean) coalescing} on, it shares its
	 * script call with the dispatches of its queue that arrive while a call for that
	 * queue is in flight.
	 * @param request the job and its options
	 * @return the job id and what happened to the job
	 */
	@Override
	public DispatchResult dispatch(JobRequest request) {
		return this.coalescer.dispatch(prepare(request));
	}

	/**
	 * Dispatch a batch: its members and callbacks pass the same steps as any dispatch
	 * ({@link WorkflowDispatcher#prepareBatch}), all before any is sent, then it is sent
	 * ({@link WorkflowDispatcher#sendBatch}).
	 */
	@Override
	public BatchResult dispatchBatch(BatchRequest request) {
		return this.workflows.sendBatch(this.workflows.prepareBatch(request));
	}

	/**
	 * Add members to a running batch: checked and passed through the interceptors first,
	 * then, per queue and {@value QueueStore#MAX_BATCH_SIZE} at most, added to the
	 * batch's pending members under the adding member, which must be pending, then
	 * enqueued under a call id the add recorded, each linked to the batch, then
	 * confirmed. An add left unconfirmed (this instance died, or the enqueue failed) is
	 * settled when the adding member's completion reaches the batch: the members never
	 * enqueued are counted cancelled, so that the batch does not wait for them.
	 */
	@Override
	public List<DispatchResult> addToBatch(String batchId, String memberId, Collection<JobRequest> members) {
		return this.workflows.addToBatch(batchId, memberId, members);
	}

	@Override
	public Optional<BatchStatus> findBatch(String batchId) {
		return this.batchOperations.find(batchId);
	}

	@Override
	public List<BatchMember> deadBatchMembers(String batchId, int offset, int count) {
		return this.batchOperations.deadMembers(batchId, offset, count);
	}

	@Override
	public boolean cancelBatch(String batchId) {
		return this.batchOperations.getCancelOperations().cancel(batchId, this.timeout);
	}

	/**
	 * Dispatch a chain: its steps and on-failure job pass the same steps as any dispatch
	 * ({@link WorkflowDispatcher#prepareChain}), all before any is sent, then it is sent
	 * ({@link WorkflowDispatcher#sendChain}).
	 */
	@Override
	public ChainResult dispatchChain(ChainRequest request) {
		return this.workflows.sendChain(this.workflows.prepareChain(request));
	}

	@Override
	public Optional<ChainStatus> findChain(String chainId) {
		return this.chainOperations.find(chainId);
	}

	@Override
	public boolean cancelChain(String chainId) {
		return this.chainOperations.cancel(chainId, this.timeout);
	}

	@Override
	public CompletableFuture<DispatchResult> dispatchAsync(JobRequest request) {
		return this.coalescer.dispatchAsync(prepare(request));
	}

	@Override
	public void start() {
		this.coalescer.start();
	}

	/**
	 * Send the asynchronous dispatches still pending, waiting at most the close timeout
	 * for Redis to take them, then stop the thread that sends them. Those not sent by
	 * then fail; later ones are refused until {@link #start()}.
	 */
	@Override
	public void stop() {
		this.coalescer.stop();
	}

	/**
	 * Return whether asynchronous dispatches are taken: from creation or {@link #start()}
	 * until {@link #stop()}.
	 */
	@Override
	public boolean isRunning() {
		return this.coalescer.isRunning();
	}

	/**
	 * Enqueue prepared jobs of one queue, as members of a batch when given one, and
	 * report them once Redis has them.
	 * @param jobs the jobs
	 * @param batchId the batch or chain link of the jobs, or {@code null} for none
	 * @return what happened to each job, in order
	 */
	List<DispatchResult> send(List<PreparedJob> jobs, @Nullable String batchId) {
		List<DispatchResult> results = this.enqueueOperations.enqueue(jobs.get(0).queue(),
				jobs.stream().map(PreparedJob::command).toList(), this.timeout, batchId);
		dispatched(jobs);
		return results;
	}

	/**
	 * Report jobs that are in Redis to the interceptors they passed; the metrics heard of
	 * them from the {@link EnqueueOperations}. An interceptor's failure is logged, not
	 * thrown: the jobs are dispatched, and a caller told otherwise would dispatch them
	 * again.
	 * @param jobs the jobs
	 */
	void dispatched(List<PreparedJob> jobs) {
		jobs.forEach(PreparedJob::dispatched);
	}

	/**
	 * Check a request, pass it through the dispatch interceptors and write its job as the
	 * enqueue script takes it, without sending it: for a job that is stored now and sent
	 * later, such as one written to a transactional outbox, or stored by a script of its
	 * own, such as a recurring tick. The caller tells the interceptors how it ended
	 * through the returned job.
	 * @param request the job and its options
	 * @return the job
	 * @throws IllegalArgumentException when the request is invalid, as for
	 * {@link #dispatch(JobRequest)}
	 * @throws io.redq.queue.core.DispatchVetoedException when an interceptor vetoes it
	 */
	public PreparedJob prepare(JobRequest request) {
		return this.preparer.prepare(request);
	}

	/**
	 * Check a request as a dispatch would, without the interceptors: for a check alone,
	 * or for the queue and id of a timer.
	 * @param request the job and its options
	 * @return the job's queue and enqueue command
	 * @throws IllegalArgumentException when the request is invalid, as for
	 * {@link #dispatch(JobRequest)}
	 */
	public PreparedCommand check(JobRequest request) {
		return this.preparer.check(request);
	}

	@Override
	public boolean cancel(String queue, String id) {
		return this.operations.cancel(QueueNames.validate(queue), id, this.timeout);
	}

	@Override
	public DispatchResult schedule(String jobName, Object key, Instant at) {
		return dispatch(JobDispatcher.timerRequest(jobName, key, at));
	}

	@Override
	public List<DispatchResult> scheduleAll(String jobName, Map<?, Instant> timers) {
		return dispatchAll(JobDispatcher.timerRequests(jobName, timers));
	}

	@Override
	public boolean reschedule(String jobName, Object key, Instant at) {
		return this.operations.reschedule(find(jobName).queue(), timerId(jobName, key), Due.at(at), this.timeout);
	}

	@Override
	public boolean cancelTimer(String jobName, Object key) {
		return this.operations.cancel(find(jobName).queue(), timerId(jobName, key), this.timeout);
	}

	@Override
	public Optional<Timer> findTimer(String jobName, Object key) {
		String id = timerId(jobName, key);
		JobStatus status = this.operations.status(find(jobName).queue(), id, this.timeout);
		return switch (status.state()) {
			case DELAYED -> Optional.of(new Timer(id, status.at(), Duration.between(status.redisTime(), status.at())));
			case READY -> Optional.of(new Timer(id, status.redisTime(), Duration.ZERO));
			default -> Optional.empty();
		};
	}

	private static String timerId(String jobName, Object key) {
		return QueueNames.validateId(jobName + ":" + key);
	}

	private JobDefinition find(String jobName) {
		return this.preparer.find(jobName);
	}

}
