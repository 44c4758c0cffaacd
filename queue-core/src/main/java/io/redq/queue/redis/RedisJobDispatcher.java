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
import java.util.stream.Collectors;

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
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.Timer;
import io.redq.queue.support.JobQueueLifecycle;
import io.redq.queue.support.micrometer.DefaultJobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobObservation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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

	private static final Log logger = LogFactory.getLog(RedisJobDispatcher.class);

	private final RedisJobQueueOperations operations;

	private final EnqueueOperations enqueueOperations;

	private final JobPreparer preparer;

	private Duration timeout = DEFAULT_TIMEOUT;

	private JobMetrics metrics = JobMetrics.NONE;

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobDispatchObservationConvention observationConvention;

	private List<DispatchInterceptor> interceptors = List.of();

	private final ResendProtection resendProtection;

	private final DispatchCoalescer coalescer;

	private final BatchOperations batchOperations;

	private final ChainOperations chainOperations;

	private Duration batchLinger = DEFAULT_BATCH_LINGER;

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
		this.batchLinger = batchLinger;
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
	 * Default {@code false}: it lowers Redis's time per dispatch, but a run of single
	 * dispatches that workers consume at once measured slower with it (see the
	 * benchmarks' HISTORY).
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
	 * Set the metrics to report dispatches to.
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
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
	private List<DispatchResult> sendAll(List<PreparedJob> prepared, @Nullable String batchId) {
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
	 * ({@link #prepareBatch}), all before any is sent, then it is sent
	 * ({@link #sendBatch}).
	 */
	@Override
	public BatchResult dispatchBatch(BatchRequest request) {
		return sendBatch(prepareBatch(request));
	}

	/**
	 * Check a batch, pass its members and callbacks through the dispatch interceptors and
	 * write them under a new batch id, without sending it: for a batch dispatched inside
	 * a transaction, sent after the commit or stored in an outbox. The caller tells the
	 * interceptors how it ended through the returned batch, or sends it with
	 * {@link #sendBatch}.
	 * @param request the batch
	 * @return the batch
	 * @throws IllegalArgumentException when a member or callback is invalid, as for
	 * {@link #dispatchBatch(BatchRequest)}
	 */
	public PreparedBatch prepareBatch(BatchRequest request) {
		return prepareBatch(request, JobIds.next());
	}

	/**
	 * Prepare a batch under the given id, its nested batches and chains each under an id
	 * of its own.
	 */
	private PreparedBatch prepareBatch(BatchRequest request, String batchId) {
		Map<String, String> member = Map.of(BatchRequest.BATCH_HEADER, batchId);
		List<PreparedJob> prepared = new ArrayList<>(request.getMembers().size());
		List<PreparedBatch> batches = new ArrayList<>(request.getBatches().size());
		List<PreparedChain> chains = new ArrayList<>(request.getChains().size());
		Map<String, PreparedJob> callbacks = new LinkedHashMap<>();
		try {
			for (JobRequest memberRequest : request.getMembers()) {
				prepared.add(this.preparer.prepare(memberRequest, null, member));
			}
			for (BatchRequest batch : request.getBatches()) {
				batches.add(prepareBatch(batch));
			}
			for (ChainRequest chain : request.getChains()) {
				chains.add(prepareChain(chain));
			}
			prepareCallback(callbacks, BatchOperations.SUCCESS, request.getOnSuccess(), batchId);
			prepareCallback(callbacks, BatchOperations.COMPLETE, request.getOnComplete(), batchId);
		}
		catch (RuntimeException ex) {
			new PreparedBatch(batchId, request.getDeathPolicy(), this.batchLinger, prepared, batches, chains, callbacks)
				.failed(ex);
			throw ex;
		}
		return new PreparedBatch(batchId, request.getDeathPolicy(), this.batchLinger, prepared, batches, chains,
				callbacks);
	}

	/**
	 * Send a prepared batch: it is created in Redis with its callbacks and pending
	 * members first, then the members are enqueued, each linked to the batch in the step
	 * that enqueues it, then the batch is opened. Send a batch once.
	 * @param batch the batch
	 * @return the batch id and what happened to each member
	 */
	public BatchResult sendBatch(PreparedBatch batch) {
		return sendBatch(batch, null);
	}

	/**
	 * Send a prepared batch as {@link #sendBatch(PreparedBatch)} does, as a member or
	 * step of the workflow a link names: its members, then its nested batches and chains,
	 * each created with this batch as its parent, before the batch is opened.
	 */
	private BatchResult sendBatch(PreparedBatch batch, @Nullable String parent) {
		List<PreparedJob> prepared = batch.members();
		Collection<PreparedJob> callbacks = batch.callbacks().values();
		try {
			this.batchOperations.create(batch.id(), batch.deathPolicy(), batch.linger(), batch.queues(),
					batch.callbacks(), batch.memberIds(), parent);
		}
		catch (RuntimeException ex) {
			batch.failed(ex);
			throw ex;
		}
		List<DispatchResult> results = new ArrayList<>(batch.memberIds().size());
		List<Object> nested = new ArrayList<>(batch.batches());
		nested.addAll(batch.chains());
		int next = -1;
		try {
			// sendAll tells the members' interceptors, each nested send its own
			if (!prepared.isEmpty()) {
				results.addAll(sendAll(prepared, batch.id()));
			}
			for (next = 0; next < nested.size(); next++) {
				String id = (nested.get(next) instanceof PreparedBatch inner) ? sendBatch(inner, batch.id()).batchId()
						: sendChain((PreparedChain) nested.get(next), batch.id()).chainId();
				results.add(new DispatchResult(id, DispatchResult.Outcome.CREATED));
			}
			this.batchOperations.seal(batch.id());
		}
		catch (RuntimeException ex) {
			callbacks.forEach((job) -> job.failed(ex));
			for (Object unsent : nested.subList(Math.min(next + 1, nested.size()), nested.size())) {
				if (unsent instanceof PreparedBatch inner) {
					inner.failed(ex);
				}
				else {
					((PreparedChain) unsent).failed(ex);
				}
			}
			throw ex;
		}
		// stored with the batch, which enqueues them when it ends
		callbacks.forEach(PreparedJob::dispatched);
		return new BatchResult(batch.id(), results);
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
		Assert.notEmpty(members, "Add at least one member to the batch");
		Map<String, String> header = Map.of(BatchRequest.BATCH_HEADER, batchId);
		List<PreparedJob> prepared = new ArrayList<>(members.size());
		List<List<PreparedJob>> steps = new ArrayList<>();
		List<Long> adds = new ArrayList<>();
		String callId = ResendProtection.newId();
		try {
			for (JobRequest request : members) {
				Assert.isTrue(request.getId() == null,
						() -> "Batch member '" + request.getJobName() + "' has the id '" + request.getId()
								+ "': batch members get ids of their own; leave the id out and pass the business key "
								+ "in the payload");
				prepared.add(this.preparer.prepare(request, null, header));
			}
			for (List<PreparedJob> jobs : prepared.stream()
				.collect(Collectors.groupingBy(PreparedJob::queue, LinkedHashMap::new, Collectors.toList()))
				.values()) {
				for (int from = 0; from < jobs.size(); from += QueueStore.MAX_BATCH_SIZE) {
					List<PreparedJob> step = jobs.subList(from,
							Math.min(jobs.size(), from + QueueStore.MAX_BATCH_SIZE));
					adds.add(this.batchOperations.add(batchId, memberId, step.get(0).queue(),
							callId + "." + steps.size(), step.stream().map(PreparedJob::id).toList()));
					steps.add(step);
				}
			}
		}
		catch (RuntimeException ex) {
			prepared.forEach((job) -> job.failed(ex));
			throw ex;
		}
		Map<PreparedJob, DispatchResult> results = new IdentityHashMap<>(prepared.size());
		for (int i = 0; i < steps.size(); i++) {
			List<PreparedJob> step = steps.get(i);
			List<DispatchResult> sent;
			try {
				sent = this.enqueueOperations.enqueueOnce(step.get(0).queue(), callId + "." + i,
						step.stream().map(PreparedJob::command).toList(), this.resendProtection.getWindow(), batchId);
			}
			catch (RuntimeException ex) {
				// settled once the adding member finished
				steps.subList(i, steps.size()).forEach((jobs) -> jobs.forEach((job) -> job.failed(ex)));
				throw ex;
			}
			dispatched(step);
			this.batchOperations.confirmed(batchId, memberId, adds.get(i));
			for (int j = 0; j < step.size(); j++) {
				results.put(step.get(j), sent.get(j));
			}
		}
		return prepared.stream().map(results::get).toList();
	}

	private void prepareCallback(Map<String, PreparedJob> callbacks, String name, @Nullable JobRequest request,
			String batchId) {
		if (request != null) {
			callbacks.put(name, this.preparer.prepare(request, batchId + ":" + name,
					Map.of(BatchRequest.BATCH_HEADER, batchId, BatchRequest.CALLBACK_HEADER, name)));
		}
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
		return this.batchOperations.cancel(batchId, this.timeout);
	}

	/**
	 * Dispatch a chain: its steps and on-failure job pass the same steps as any dispatch
	 * ({@link #prepareChain}), all before any is sent, then it is sent
	 * ({@link #sendChain}).
	 */
	@Override
	public ChainResult dispatchChain(ChainRequest request) {
		return sendChain(prepareChain(request));
	}

	/**
	 * Check a chain, pass its steps and on-failure job through the dispatch interceptors
	 * and write them under a new chain id, each under the id {@code <chain id>:<step>}
	 * (from 1) or {@code <chain id>:failure}, without sending it: for a chain dispatched
	 * inside a transaction, sent after the commit or stored in an outbox. The caller
	 * tells the interceptors how it ended through the returned chain, or sends it with
	 * {@link #sendChain}.
	 * @param request the chain
	 * @return the chain
	 * @throws IllegalArgumentException when a step or the on-failure job is invalid, as
	 * for {@link #dispatchChain(ChainRequest)}
	 */
	public PreparedChain prepareChain(ChainRequest request) {
		String chainId = JobIds.next();
		List<Object> steps = new ArrayList<>(request.getSteps().size());
		PreparedJob onFailure = null;
		try {
			for (Object step : request.getSteps()) {
				String position = Integer.toString(steps.size() + 1);
				// a batch step's id is its step id, which its end is handed over under
				steps.add((step instanceof BatchRequest batch) ? prepareBatch(batch, chainId + ":" + position)
						: this.preparer.prepare((JobRequest) step, chainId + ":" + position,
								Map.of(ChainRequest.CHAIN_HEADER, chainId, ChainRequest.STEP_HEADER, position)));
			}
			if (request.getOnFailure() != null) {
				onFailure = this.preparer.prepare(request.getOnFailure(), chainId + ":" + ChainOperations.FAILURE, Map
					.of(ChainRequest.CHAIN_HEADER, chainId, ChainRequest.CALLBACK_HEADER, ChainOperations.FAILURE));
			}
		}
		catch (RuntimeException ex) {
			steps.forEach((step) -> PreparedChain.stepFailed(step, ex));
			throw ex;
		}
		return new PreparedChain(chainId, this.batchLinger, steps, onFailure);
	}

	/**
	 * Send a prepared chain: it is created in Redis with its steps first, then its first
	 * step is enqueued, linked to the chain in the step that enqueues it, then the chain
	 * is opened. Send a chain once.
	 * @param chain the chain
	 * @return the chain id and its steps' ids
	 */
	public ChainResult sendChain(PreparedChain chain) {
		return sendChain(chain, null);
	}

	/**
	 * Send a prepared chain as {@link #sendChain(PreparedChain)} does, as a member of the
	 * given batch; a first step that is a batch is created with the chain as its parent.
	 */
	private ChainResult sendChain(PreparedChain chain, @Nullable String parent) {
		List<Object> steps = chain.steps();
		PreparedJob onFailure = chain.onFailure();
		String link;
		try {
			link = this.chainOperations.create(chain.command(), ChainOperations.CREATION_WINDOW, parent);
			Assert.state(link != null, () -> "Chain " + chain.id() + " was opened while it was created");
		}
		catch (RuntimeException ex) {
			chain.failed(ex);
			throw ex;
		}
		List<Object> later = new ArrayList<>(steps.subList(1, steps.size()));
		if (onFailure != null) {
			later.add(onFailure);
		}
		try {
			// the first step's send tells its interceptors
			if (steps.get(0) instanceof PreparedBatch first) {
				sendBatch(first, link);
			}
			else {
				send(List.of((PreparedJob) steps.get(0)), link);
			}
			this.chainOperations.open(chain.id());
		}
		catch (RuntimeException ex) {
			later.forEach((step) -> PreparedChain.stepFailed(step, ex));
			throw ex;
		}
		// stored with the chain, which enqueues them in turn
		later.forEach(PreparedChain::stepDispatched);
		return chain.result();
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
	 * @return what happened to each job, in order
	 */
	private List<DispatchResult> send(List<PreparedJob> jobs) {
		return send(jobs, null);
	}

	private List<DispatchResult> send(List<PreparedJob> jobs, @Nullable String batchId) {
		List<DispatchResult> results = this.enqueueOperations.enqueue(jobs.get(0).queue(),
				jobs.stream().map(PreparedJob::command).toList(), this.timeout, batchId);
		dispatched(jobs);
		return results;
	}

	/**
	 * Report jobs that are in Redis to the metrics and the interceptors they passed. A
	 * failure to report is logged, not thrown: the jobs are dispatched, and a caller told
	 * otherwise would dispatch them again.
	 * @param jobs the jobs
	 */
	private void dispatched(List<PreparedJob> jobs) {
		try {
			for (PreparedJob job : jobs) {
				this.metrics.dispatched(job.queue(), job.jobName());
				job.dispatched();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Failed to report " + jobs.size() + " dispatched job(s) to metrics or observations", ex);
		}
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
		JobStatus status = this.operations.status(find(jobName).queue(), id);
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
