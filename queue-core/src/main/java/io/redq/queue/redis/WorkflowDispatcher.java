package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The workflow half of a {@link RedisJobDispatcher}: prepares batches and chains (their
 * jobs checked and passed through the dispatch interceptors, all before any is sent),
 * sends them, and adds members to running batches; their jobs are enqueued and reported
 * through the dispatcher. Reached with
 * {@link RedisJobDispatcher#getWorkflowDispatcher()}, for a workflow prepared now and
 * sent later, such as one dispatched inside a transaction.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class WorkflowDispatcher {

	private final RedisJobDispatcher dispatcher;

	private final JobPreparer preparer;

	private final QueueStore store;

	private final EnqueueOperations enqueueOperations;

	private final ResendProtection resendProtection;

	private final BatchOperations batchOperations;

	private final ChainOperations chainOperations;

	private Duration batchLinger = RedisJobDispatcher.DEFAULT_BATCH_LINGER;

	WorkflowDispatcher(RedisJobDispatcher dispatcher, JobPreparer preparer, RedisJobQueueOperations operations) {
		this.dispatcher = dispatcher;
		this.preparer = preparer;
		this.store = operations.getStore();
		this.enqueueOperations = operations.getEnqueueOperations();
		this.resendProtection = this.store.getResendProtection();
		this.batchOperations = operations.getBatchOperations();
		this.chainOperations = this.batchOperations.chains();
	}

	/**
	 * Set how long an ended batch or chain is kept, as
	 * {@link RedisJobDispatcher#setBatchLinger(Duration)} describes.
	 */
	void setBatchLinger(Duration batchLinger) {
		this.batchLinger = batchLinger;
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
	 * {@link RedisJobDispatcher#dispatchBatch(BatchRequest)}
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
			this.batchOperations.getCreationOperations()
				.create(batch.id(), batch.deathPolicy(), batch.linger(), batch.queues(), batch.callbacks(),
						batch.memberIds(), parent);
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
				results.addAll(this.dispatcher.sendAll(prepared, batch.id()));
			}
			for (next = 0; next < nested.size(); next++) {
				String id = (nested.get(next) instanceof PreparedBatch inner) ? sendBatch(inner, batch.id()).batchId()
						: sendChain((PreparedChain) nested.get(next), batch.id()).chainId();
				results.add(new DispatchResult(id, DispatchResult.Outcome.CREATED));
			}
			this.batchOperations.getCreationOperations().seal(batch.id());
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
	 * Add members to a running batch, as {@link RedisJobDispatcher#addToBatch} describes.
	 */
	List<DispatchResult> addToBatch(String batchId, String memberId, Collection<JobRequest> members) {
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
					adds.add(this.batchOperations.getCreationOperations()
						.add(batchId, memberId, step.get(0).queue(), callId + "." + steps.size(),
								step.stream().map(PreparedJob::id).toList()));
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
			this.dispatcher.dispatched(step);
			this.batchOperations.getCreationOperations().confirmed(batchId, memberId, adds.get(i));
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
	 * for {@link RedisJobDispatcher#dispatchChain(ChainRequest)}
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
				this.dispatcher.send(List.of((PreparedJob) steps.get(0)), link);
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

}
