package io.redq.queue.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.Timer;
import io.redq.queue.redis.PreparedBatch;
import io.redq.queue.redis.PreparedChain;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.WorkflowDispatcher;
import io.redq.queue.support.JobQueueLifecycle;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * {@link JobDispatcher} that makes dispatch follow the Spring-managed transaction of the
 * calling thread, in the spirit of Spring's {@code TransactionAwareCacheDecorator}: a job
 * dispatched inside a transaction is held and sent when the transaction commits, and
 * dropped when it rolls back; outside a transaction, or for a request built with
 * {@link JobRequest.Builder#outsideTransaction()}, the target dispatcher sends it at
 * once. It works with any {@code PlatformTransactionManager} (JDBC, JPA, JTA) through
 * {@link TransactionSynchronizationManager}.
 *
 * <p>
 * A deferred dispatch is checked at once (an unknown job or a payload that cannot be
 * written fails the caller, inside its transaction) and returns its final id with
 * {@link DispatchResult.Outcome#DEFERRED}; {@link #dispatchAsync(JobRequest)} returns a
 * future completed with the outcome once the job is in Redis after the commit, or
 * cancelled when the transaction rolls back. The jobs of one transaction are sent after
 * the commit with one {@link JobDispatcher#dispatchAll(Collection)}: one round trip per
 * queue (per 1,000 jobs). A rollback to a savepoint ({@code PROPAGATION_NESTED}) drops
 * the jobs dispatched since the savepoint; a {@code REQUIRES_NEW} transaction sends its
 * own jobs when it commits.
 *
 * <p>
 * {@link #cancel}, {@link #schedule}, {@link #reschedule} and {@link #cancelTimer} follow
 * the transaction too, in call order with its dispatches (with an outbox: written to it
 * and applied by its relay in that order), so that a timer set and then moved or
 * cancelled in one transaction ends as written, a call in a later transaction is applied
 * after the earlier ones, and a rollback changes nothing in Redis. As their effect is not
 * known before the commit, {@code cancel}, {@code reschedule} and {@code cancelTimer}
 * then return {@code false} (nothing was removed or moved yet). {@link #findTimer} reads
 * Redis at once.
 *
 * <p>
 * The steps of a committed transaction are sent without the committing thread waiting for
 * Redis, in the order the transactions committed (dispatches alone through the target's
 * {@link JobDispatcher#dispatchAsync asynchronous path}, timer calls by a thread of this
 * dispatcher), so that the committing thread gives its connection back without waiting
 * for Redis. What can be lost: the steps are held in memory, so a process that dies
 * between the commit and the send after it loses them, as does a send that fails (Redis
 * unreachable: the failure is logged with the job ids and fails the futures; the commit
 * stands), or a transaction that commits while 10,000 steps of earlier ones still wait.
 * With a {@link JobOutbox} set, the steps are instead written to the outbox in the
 * transaction itself, and nothing is lost.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class TransactionAwareJobDispatcher implements JobDispatcher, JobQueueLifecycle {

	private final JobDispatcher target;

	private final AfterCommitSender sender;

	private @Nullable JobOutbox outbox;

	/**
	 * Create an instance.
	 * @param target the dispatcher that sends the jobs
	 */
	public TransactionAwareJobDispatcher(JobDispatcher target) {
		this.target = target;
		this.sender = new AfterCommitSender(target);
	}

	/**
	 * Set how long closing the dispatcher waits for Redis to take the steps of committed
	 * transactions that still wait to be sent; those not sent by then fail.
	 * <p>
	 * Default 10 seconds.
	 * @param closeTimeout the timeout
	 */
	public void setCloseTimeout(Duration closeTimeout) {
		Assert.isTrue(closeTimeout.toMillis() > 0, "closeTimeout must be at least 1 ms");
		this.sender.setCloseTimeout(closeTimeout);
	}

	/**
	 * Set the outbox that the jobs dispatched inside a transaction are written to, in
	 * that transaction, instead of being sent after it commits.
	 * <p>
	 * Default {@code null}: sent after the commit.
	 * @param outbox the outbox, or {@code null}
	 */
	public void setOutbox(@Nullable JobOutbox outbox) {
		this.outbox = outbox;
	}

	/**
	 * Return the dispatcher that sends the jobs, which ignores transactions.
	 * @return the target dispatcher
	 */
	public JobDispatcher getTargetDispatcher() {
		return this.target;
	}

	@Override
	public DispatchResult dispatch(JobRequest request) {
		if (currentTransaction() == null || request.isOutsideTransaction()) {
			// the target's own dispatch, which shares calls with concurrent ones
			return this.target.dispatch(request);
		}
		return dispatchAll(List.of(request)).get(0);
	}

	@Override
	public List<DispatchResult> dispatchAll(Collection<JobRequest> requests) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null || requests.stream().allMatch(JobRequest::isOutsideTransaction)) {
			return this.target.dispatchAll(requests);
		}
		// all checked before any is sent or held
		List<TransactionalDispatches.Dispatch> deferred = new ArrayList<>(requests.size());
		List<JobRequest> immediate = new ArrayList<>();
		for (JobRequest request : requests) {
			if (request.isOutsideTransaction()) {
				immediate.add(request);
			}
			else {
				deferred.add(defer(request, null));
			}
		}
		List<DispatchResult> sent = immediate.isEmpty() ? List.of() : this.target.dispatchAll(immediate);
		List<DispatchResult> results = new ArrayList<>(requests.size());
		int nextSent = 0;
		int nextDeferred = 0;
		for (JobRequest request : requests) {
			if (request.isOutsideTransaction()) {
				results.add(sent.get(nextSent++));
			}
			else {
				TransactionalDispatches.Dispatch dispatch = deferred.get(nextDeferred++);
				transaction.add(dispatch);
				results.add(new DispatchResult(dispatch.id(), DispatchResult.Outcome.DEFERRED));
			}
		}
		return results;
	}

	/**
	 * Dispatch a job without waiting for Redis; inside a transaction, the returned future
	 * completes once the job is in Redis after the commit (with an outbox: at the commit,
	 * with {@link DispatchResult.Outcome#DEFERRED}), and is cancelled when the
	 * transaction rolls back. Its {@code get} and {@code join} throw an
	 * {@link IllegalStateException} inside the transaction, where they would wait
	 * forever.
	 */
	@Override
	public CompletableFuture<DispatchResult> dispatchAsync(JobRequest request) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null || request.isOutsideTransaction()) {
			return this.target.dispatchAsync(request);
		}
		CompletableFuture<DispatchResult> future = transaction.newFuture();
		transaction.add(defer(request, future));
		return future;
	}

	/**
	 * Dispatch a batch; inside a transaction, it follows the transaction as a whole: its
	 * members and callbacks are checked and pass the dispatch interceptors at once, under
	 * the batch id and member ids returned (each
	 * {@link DispatchResult.Outcome#DEFERRED}); the batch is sent after the commit (with
	 * an outbox: written to it as one entry, from which the relay creates it), and
	 * dropped when the transaction rolls back.
	 * @throws IllegalStateException inside a transaction, when the target dispatcher is
	 * not a {@link RedisJobDispatcher}
	 */
	@Override
	public BatchResult dispatchBatch(BatchRequest request) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null) {
			return this.target.dispatchBatch(request);
		}
		WorkflowDispatcher workflows = workflowTarget("batch");
		JobOutbox outbox = this.outbox;
		PreparedBatch batch = workflows.prepareBatch(request);
		JobOutbox.Entry entry;
		try {
			entry = (outbox != null) ? outbox.prepareBatch(batch) : null;
		}
		catch (RuntimeException ex) {
			batch.failed(ex);
			throw ex;
		}
		transaction.add(new TransactionalDispatches.WorkflowDispatch("dispatch batch " + batch.id(), () -> {
			workflows.sendBatch(batch);
			return true;
		}, batch::failed, entry));
		return batch.deferred();
	}

	/**
	 * Add members to a running batch at once, inside a transaction too: the adding
	 * member's own run, not a transaction, is what the batch waits for.
	 */
	@Override
	public List<DispatchResult> addToBatch(String batchId, String memberId, Collection<JobRequest> members) {
		return this.target.addToBatch(batchId, memberId, members);
	}

	@Override
	public Optional<BatchStatus> findBatch(String batchId) {
		return this.target.findBatch(batchId);
	}

	@Override
	public List<BatchMember> deadBatchMembers(String batchId, int offset, int count) {
		return this.target.deadBatchMembers(batchId, offset, count);
	}

	@Override
	public boolean cancelBatch(String batchId) {
		return this.target.cancelBatch(batchId);
	}

	/**
	 * Dispatch a chain; inside a transaction, it follows the transaction as a whole: its
	 * steps and on-failure job are checked and pass the dispatch interceptors at once,
	 * under the chain id and step ids returned; the chain is sent after the commit (with
	 * an outbox: written to it as one entry, from which the relay creates it), and
	 * dropped when the transaction rolls back.
	 * @throws IllegalStateException inside a transaction, when the target dispatcher is
	 * not a {@link RedisJobDispatcher}
	 */
	@Override
	public ChainResult dispatchChain(ChainRequest request) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null) {
			return this.target.dispatchChain(request);
		}
		WorkflowDispatcher workflows = workflowTarget("chain");
		JobOutbox outbox = this.outbox;
		PreparedChain chain = workflows.prepareChain(request);
		JobOutbox.Entry entry;
		try {
			entry = (outbox != null) ? outbox.prepareChain(chain) : null;
		}
		catch (RuntimeException ex) {
			chain.failed(ex);
			throw ex;
		}
		transaction.add(new TransactionalDispatches.WorkflowDispatch("dispatch chain " + chain.id(), () -> {
			workflows.sendChain(chain);
			return true;
		}, chain::failed, entry));
		return chain.result();
	}

	@Override
	public Optional<ChainStatus> findChain(String chainId) {
		return this.target.findChain(chainId);
	}

	@Override
	public boolean cancelChain(String chainId) {
		return this.target.cancelChain(chainId);
	}

	@Override
	public boolean cancel(String queue, String id) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null) {
			return this.target.cancel(queue, id);
		}
		QueueNames.validate(queue);
		JobOutbox outbox = this.outbox;
		transaction.add(new TransactionalDispatches.Call("cancel job '" + id + "' of queue '" + queue + "'",
				() -> this.target.cancel(queue, id), (outbox != null) ? outbox.prepareCancel(queue, id) : null));
		return false;
	}

	@Override
	public DispatchResult schedule(String jobName, Object key, Instant at) {
		if (currentTransaction() == null) {
			return this.target.schedule(jobName, key, at);
		}
		// the timer id that JobDispatcher#schedule documents
		return dispatch(JobDispatcher.timerRequest(jobName, key, at));
	}

	@Override
	public List<DispatchResult> scheduleAll(String jobName, Map<?, Instant> timers) {
		return dispatchAll(JobDispatcher.timerRequests(jobName, timers));
	}

	@Override
	public boolean reschedule(String jobName, Object key, Instant at) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null) {
			return this.target.reschedule(jobName, key, at);
		}
		JobOutbox outbox = this.outbox;
		transaction.add(new TransactionalDispatches.Call("reschedule timer '" + timerId(jobName, key) + "'",
				() -> this.target.reschedule(jobName, key, at),
				(outbox != null) ? outbox.prepareReschedule(jobName, key, at) : null));
		return false;
	}

	@Override
	public boolean cancelTimer(String jobName, Object key) {
		TransactionalDispatches transaction = currentTransaction();
		if (transaction == null) {
			return this.target.cancelTimer(jobName, key);
		}
		JobOutbox outbox = this.outbox;
		transaction.add(new TransactionalDispatches.Call("cancel timer '" + timerId(jobName, key) + "'",
				() -> this.target.cancelTimer(jobName, key),
				(outbox != null) ? outbox.prepareCancelTimer(jobName, key) : null));
		return false;
	}

	@Override
	public Optional<Timer> findTimer(String jobName, Object key) {
		return this.target.findTimer(jobName, key);
	}

	@Override
	public void start() {
		this.sender.start();
	}

	/**
	 * Send the steps of committed transactions that still wait, waiting at most the close
	 * timeout for Redis to take them; those not sent by then fail. Transactions that
	 * commit later send their steps on their own thread.
	 */
	@Override
	public void stop() {
		this.sender.stop();
	}

	@Override
	public boolean isRunning() {
		return this.sender.isRunning();
	}

	/**
	 * Check a request and hold it for the transaction, with its final id.
	 */
	private TransactionalDispatches.Dispatch defer(JobRequest request,
			@Nullable CompletableFuture<DispatchResult> future) {
		JobRequest withId = (request.getId() != null) ? request : withId(request, JobIds.next());
		JobOutbox outbox = this.outbox;
		if (outbox != null) {
			return new TransactionalDispatches.Dispatch(withId, withId.getId(), outbox.prepare(withId), future);
		}
		if (this.target instanceof RedisJobDispatcher redis) {
			// checked now, so that bad input fails the caller inside its transaction
			redis.check(withId);
		}
		return new TransactionalDispatches.Dispatch(withId, withId.getId(), null, future);
	}

	private WorkflowDispatcher workflowTarget(String workflow) {
		if (!(this.target instanceof RedisJobDispatcher redis)) {
			throw new IllegalStateException("A " + workflow + " follows a transaction only with a RedisJobDispatcher "
					+ "as the target; " + this.target.getClass().getName() + " is not one. Dispatch the " + workflow
					+ " after the transaction commits, or outside it");
		}
		return redis.getWorkflowDispatcher();
	}

	private @Nullable TransactionalDispatches currentTransaction() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		TransactionalDispatches transaction = (TransactionalDispatches) TransactionSynchronizationManager
			.getResource(this);
		if (transaction == null) {
			transaction = new TransactionalDispatches(this, this.sender, this.outbox);
			TransactionSynchronizationManager.bindResource(this, transaction);
			transaction.register();
		}
		return transaction;
	}

	private static String timerId(String jobName, Object key) {
		return QueueNames.validateId(jobName + ":" + key);
	}

	/**
	 * Return a copy of a request with a generated id, so that the id of a deferred
	 * dispatch is known at once: the id was free, so {@link DuplicatePolicy#KEEP} never
	 * finds another job.
	 */
	private static JobRequest withId(JobRequest request, String id) {
		JobRequest.Builder builder = (request.getJobName() != null)
				? JobRequest.of(request.getJobName(), request.getPayload())
				: JobRequest.of(Objects.requireNonNull(request.getPayload()));
		if (request.getQueue() != null) {
			builder.queue(request.getQueue());
		}
		if (request.getDue().absolute()) {
			builder.at(Instant.ofEpochMilli(request.getDue().millis()));
		}
		else {
			builder.delay(Duration.ofMillis(request.getDue().millis()));
		}
		if (request.getMaxAttempts() != null) {
			builder.maxAttempts(request.getMaxAttempts());
		}
		if (request.getPriority() != null) {
			builder.priority(request.getPriority());
		}
		if (request.getGroup() != null) {
			builder.group(request.getGroup());
		}
		request.getHeaders().forEach(builder::header);
		return builder.id(id, DuplicatePolicy.KEEP).unique(request.getUniqueness()).build();
	}

}
