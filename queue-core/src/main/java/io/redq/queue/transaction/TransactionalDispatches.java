package io.redq.queue.transaction;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The dispatches and timer calls held for one transaction: written to the outbox before
 * it commits, sent after it commits, dropped when it or its savepoint rolls back.
 *
 * @author Redq team
 */
final class TransactionalDispatches implements TransactionSynchronization {

	private static final Log logger = LogFactory.getLog(TransactionAwareJobDispatcher.class);

	private final Object resourceKey;

	private final JobDispatcher target;

	private final @Nullable JobOutbox outbox;

	private final List<Step> steps = new ArrayList<>();

	/**
	 * Whether the dispatches went to the outbox before the commit: not when there is
	 * none, when the transaction was read-only, or when this synchronization was
	 * registered too late for the commit's first phase (a dispatch from another
	 * synchronization's {@code beforeCommit}); then they are sent after the commit.
	 */
	private boolean writtenToOutbox;

	/** The number of steps held when each savepoint was set. */
	private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

	TransactionalDispatches(Object resourceKey, JobDispatcher target, @Nullable JobOutbox outbox) {
		this.resourceKey = resourceKey;
		this.target = target;
		this.outbox = outbox;
	}

	void add(Step step) {
		this.steps.add(step);
	}

	@Override
	public int getOrder() {
		// late, so that dispatches made by other synchronizations before the commit are
		// in
		return LOWEST_PRECEDENCE;
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(this.resourceKey);
	}

	@Override
	public void resume() {
		TransactionSynchronizationManager.bindResource(this.resourceKey, this);
	}

	@Override
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.steps.size());
	}

	@Override
	public void savepointRollback(Object savepoint) {
		// a savepoint set before this synchronization was registered precedes every step
		int held = this.savepoints.getOrDefault(savepoint, 0);
		List<Step> dropped = this.steps.subList(held, this.steps.size());
		dropped.forEach(Step::rolledBack);
		dropped.clear();
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		// a read-only transaction cannot write: its jobs are sent after the commit
		if (this.outbox != null && !readOnly) {
			List<JobOutbox.Entry> entries = new ArrayList<>();
			for (Step step : this.steps) {
				if (step instanceof Dispatch dispatch) {
					entries.add(dispatch.entry());
				}
			}
			if (!entries.isEmpty()) {
				this.outbox.write(entries);
			}
			this.writtenToOutbox = true;
		}
	}

	@Override
	public void afterCompletion(int status) {
		// synchronizations are cleared by now, so that a dispatch made here is sent at
		// once
		TransactionSynchronizationManager.unbindResourceIfPossible(this.resourceKey);
		if (status == STATUS_COMMITTED) {
			committed();
		}
		else {
			if (status == STATUS_UNKNOWN && !this.steps.isEmpty()) {
				logger.error("A transaction ended in an unknown state (heuristic outcome); not sending its "
						+ this.steps.size() + " job dispatch(es) or timer call(s): " + describe(this.steps));
			}
			this.steps.forEach(Step::rolledBack);
		}
	}

	private void committed() {
		List<Dispatch> batch = new ArrayList<>();
		for (Step step : this.steps) {
			if (step instanceof Dispatch dispatch) {
				batch.add(dispatch);
			}
			else {
				send(batch);
				batch.clear();
				call((Call) step);
			}
		}
		send(batch);
		if (this.writtenToOutbox && this.outbox != null && this.steps.stream().anyMatch(Dispatch.class::isInstance)) {
			this.outbox.committed();
		}
	}

	private void send(List<Dispatch> batch) {
		if (batch.isEmpty()) {
			return;
		}
		if (this.writtenToOutbox) {
			// stored in the transaction: the relay sends them
			batch.forEach((dispatch) -> dispatch
				.complete(new DispatchResult(dispatch.id(), DispatchResult.Outcome.DEFERRED)));
			return;
		}
		try {
			List<DispatchResult> results = this.target.dispatchAll(batch.stream().map(Dispatch::request).toList());
			for (int i = 0; i < batch.size(); i++) {
				batch.get(i).complete(results.get(i));
			}
		}
		catch (RuntimeException ex) {
			logger.error("Failed to send " + batch.size() + " job(s) dispatched in a transaction that committed; "
					+ "they are lost: " + describe(batch), ex);
			batch.forEach((dispatch) -> dispatch.fail(ex));
		}
	}

	private void call(Call call) {
		try {
			boolean done = call.action().getAsBoolean();
			if (logger.isDebugEnabled()) {
				logger.debug("After commit: " + call.description() + ": " + done);
			}
		}
		catch (RuntimeException ex) {
			logger.error("Failed to " + call.description() + " after its transaction committed", ex);
		}
	}

	private static String describe(List<? extends Step> steps) {
		return steps.stream().map(Step::description).toList().toString();
	}

	/**
	 * A dispatch or timer call held for the transaction.
	 */
	sealed interface Step permits Dispatch, Call {

		String description();

		default void rolledBack() {
		}

	}

	/**
	 * A held dispatch.
	 *
	 * @param request the request, with its final id
	 * @param id the job id
	 * @param entry the job as the outbox stores it, or {@code null} without one
	 * @param future the future of an asynchronous dispatch, or {@code null}
	 */
	record Dispatch(JobRequest request, String id, JobOutbox.@Nullable Entry entry,
			@Nullable CompletableFuture<DispatchResult> future) implements Step {

		@Override
		public String description() {
			return "job " + this.id;
		}

		@Override
		public void rolledBack() {
			if (this.future != null) {
				this.future.cancel(false);
			}
		}

		void complete(DispatchResult result) {
			if (this.future != null) {
				this.future.complete(result);
			}
		}

		void fail(Exception ex) {
			if (this.future != null) {
				this.future.completeExceptionally(ex);
			}
		}

	}

	/**
	 * A held timer call.
	 *
	 * @param description what it does
	 * @param action the call
	 */
	record Call(String description, BooleanSupplier action) implements Step {

	}

}
