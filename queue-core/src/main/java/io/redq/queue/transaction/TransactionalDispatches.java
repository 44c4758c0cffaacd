package io.redq.queue.transaction;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The dispatches and timer calls held for one transaction: written to the outbox before
 * it commits, or handed to the {@link AfterCommitSender} once it has committed; dropped
 * when it or its savepoint rolls back.
 * <p>
 * With an outbox, a step made after the outbox was written is never dropped: made before
 * the transaction completes (by a synchronization's {@code beforeCommit} that runs after
 * this one), it is written in the transaction at once; made after the commit (an
 * {@code afterCommit} callback), it is written in a transaction of its own, after the
 * committed ones; made while the transaction completes (a {@code beforeCompletion}
 * callback, when it is not yet known whether it commits), it is refused.
 *
 * @author Redq team
 */
final class TransactionalDispatches implements TransactionSynchronization {

	private static final Log logger = LogFactory.getLog(TransactionAwareJobDispatcher.class);

	private final Object resourceKey;

	private final AfterCommitSender sender;

	private final @Nullable JobOutbox outbox;

	private final List<Step> steps = new ArrayList<>();

	/** The number of steps held when each savepoint was set. */
	private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

	/**
	 * Whether the steps went to the outbox before the commit: not when there is none,
	 * when the transaction was read-only, or when this synchronization was registered too
	 * late for the commit's first phase (a dispatch from another synchronization's
	 * {@code beforeCommit}); then they are sent after the commit.
	 */
	private boolean writtenToOutbox;

	private Phase phase = Phase.OPEN;

	TransactionalDispatches(Object resourceKey, AfterCommitSender sender, @Nullable JobOutbox outbox) {
		this.resourceKey = resourceKey;
		this.sender = sender;
		this.outbox = outbox;
	}

	/**
	 * Register this and the synchronization that tells the phases of the commit.
	 */
	void register() {
		TransactionSynchronizationManager.registerSynchronization(this);
		TransactionSynchronizationManager.registerSynchronization(new PhaseTracker());
	}

	/**
	 * Hold a step for the transaction, or write it to the outbox at once when the
	 * transaction's steps are written already.
	 * @param step the step
	 * @throws IllegalStateException when the step can no longer be written
	 */
	void add(Step step) {
		if (!this.writtenToOutbox || this.outbox == null) {
			this.steps.add(step);
			return;
		}
		JobOutbox.Entry entry = step.entry();
		if (entry == null) {
			throw new IllegalStateException("No outbox entry for " + step.description());
		}
		try {
			switch (this.phase) {
				case OPEN -> {
					// another synchronization's beforeCommit, after this one's: still in
					// the
					// transaction
					this.outbox.write(List.of(entry));
					this.steps.add(step);
				}
				case COMPLETING -> throw new IllegalStateException("Cannot " + step.description()
						+ " while its transaction completes (from a TransactionSynchronization's beforeCompletion): "
						+ "it is not known yet whether the transaction commits, and it can no longer be written to "
						+ "the outbox in it. Dispatch from beforeCommit, afterCommit or afterCompletion instead, or "
						+ "mark the request outsideTransaction()");
				case COMMITTED -> {
					// an afterCommit callback: written after the committed steps
					this.outbox.writeAfterCommit(List.of(entry));
					step.deferred();
					this.outbox.committed();
				}
			}
		}
		catch (RuntimeException ex) {
			entry.discarded(ex);
			throw ex;
		}
	}

	/**
	 * Return a future that completes once the transaction's step is done, and refuses to
	 * be waited for inside the transaction, where it would wait forever.
	 * @return the future
	 */
	CompletableFuture<DispatchResult> newFuture() {
		return new TransactionBoundFuture(this);
	}

	private boolean isCurrent() {
		// bound until the transaction's afterCompletion
		return TransactionSynchronizationManager.getResource(this.resourceKey) == this;
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
		// a read-only transaction cannot write: its steps are sent after the commit
		if (this.outbox != null && !readOnly) {
			List<JobOutbox.Entry> entries = new ArrayList<>(this.steps.size());
			for (Step step : this.steps) {
				entries.add(step.entry());
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
		if (this.steps.isEmpty()) {
			return;
		}
		if (this.writtenToOutbox && this.outbox != null) {
			// stored in the transaction: the relay applies them
			this.steps.forEach(Step::deferred);
			this.outbox.committed();
			return;
		}
		// sent by another thread, so that this one gives its connection back at once
		this.sender.submit(List.copyOf(this.steps));
	}

	static String describe(List<? extends Step> steps) {
		return steps.stream().map(Step::description).toList().toString();
	}

	/**
	 * The phases of a commit after this synchronization's {@code beforeCommit}.
	 */
	private enum Phase {

		/** Before the commit, or before this synchronization's {@code beforeCommit}. */
		OPEN,

		/** Between {@code beforeCompletion} and the commit: the outcome is not known. */
		COMPLETING,

		/** After the commit, in the {@code afterCommit} callbacks. */
		COMMITTED

	}

	/**
	 * Tells the phase of the commit first, before the other synchronizations' callbacks
	 * of that phase run.
	 */
	private final class PhaseTracker implements TransactionSynchronization {

		@Override
		public int getOrder() {
			return HIGHEST_PRECEDENCE;
		}

		@Override
		public void beforeCompletion() {
			TransactionalDispatches.this.phase = Phase.COMPLETING;
		}

		@Override
		public void afterCommit() {
			TransactionalDispatches.this.phase = Phase.COMMITTED;
		}

	}

	/**
	 * A dispatch or timer call held for the transaction.
	 */
	sealed interface Step permits Dispatch, Call, WorkflowDispatch {

		String description();

		/**
		 * Return the step as the outbox stores it.
		 * @return the entry, or {@code null} without an outbox
		 */
		JobOutbox.@Nullable Entry entry();

		/**
		 * Record that the transaction, or the savepoint before the step, rolled back.
		 */
		default void rolledBack() {
			JobOutbox.Entry entry = entry();
			if (entry != null) {
				entry.discarded(new IllegalStateException(
						"Not stored: the transaction of " + description() + ", or its savepoint, rolled back"));
			}
		}

		/**
		 * Record that the outbox holds the step: the relay applies it.
		 */
		default void deferred() {
			JobOutbox.Entry entry = entry();
			if (entry != null) {
				entry.stored();
			}
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
			return "dispatch job " + this.id;
		}

		@Override
		public void rolledBack() {
			Step.super.rolledBack();
			if (this.future != null) {
				this.future.cancel(false);
			}
		}

		@Override
		public void deferred() {
			Step.super.deferred();
			complete(new DispatchResult(this.id, DispatchResult.Outcome.DEFERRED));
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
	 * @param action the call, after the commit
	 * @param entry the call as the outbox stores it, or {@code null} without one
	 */
	record Call(String description, BooleanSupplier action, JobOutbox.@Nullable Entry entry) implements Step {

	}

	/**
	 * A held batch or chain, prepared at its dispatch under its final id.
	 *
	 * @param description what it dispatches
	 * @param send its send, after the commit
	 * @param failed tells its jobs' interceptors that it was not dispatched
	 * @param entry the batch or chain as the outbox stores it, or {@code null} without
	 * one
	 */
	record WorkflowDispatch(String description, BooleanSupplier send, Consumer<Exception> failed,
			JobOutbox.@Nullable Entry entry) implements Step {

		@Override
		public void rolledBack() {
			if (this.entry != null) {
				Step.super.rolledBack();
			}
			else {
				this.failed.accept(new IllegalStateException(
						"Not sent: the transaction of " + this.description + ", or its savepoint, rolled back"));
			}
		}

	}

	/**
	 * The future of a dispatch held for a transaction: waiting for it inside that
	 * transaction would wait forever, since it completes after the commit, so it throws
	 * instead.
	 */
	private static final class TransactionBoundFuture extends CompletableFuture<DispatchResult> {

		private final TransactionalDispatches transaction;

		TransactionBoundFuture(TransactionalDispatches transaction) {
			this.transaction = transaction;
		}

		@Override
		public DispatchResult get() throws InterruptedException, ExecutionException {
			checkNotWaitingInside();
			return super.get();
		}

		@Override
		public DispatchResult get(long timeout, TimeUnit unit)
				throws InterruptedException, ExecutionException, TimeoutException {
			checkNotWaitingInside();
			return super.get(timeout, unit);
		}

		@Override
		public DispatchResult join() {
			checkNotWaitingInside();
			return super.join();
		}

		private void checkNotWaitingInside() {
			if (!isDone() && this.transaction.isCurrent()) {
				throw new IllegalStateException("This dispatch completes after its transaction commits: waiting for "
						+ "it inside the transaction would wait forever. Wait after the transaction, or dispatch with "
						+ "JobRequest...outsideTransaction() to send the job at once");
			}
		}

	}

}
