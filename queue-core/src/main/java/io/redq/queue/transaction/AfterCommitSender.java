package io.redq.queue.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.transaction.TransactionalDispatches.WorkflowDispatch;
import io.redq.queue.transaction.TransactionalDispatches.Call;
import io.redq.queue.transaction.TransactionalDispatches.Dispatch;
import io.redq.queue.transaction.TransactionalDispatches.Step;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The steps of committed transactions that wait to be sent, and the thread that sends
 * them in the order the transactions committed: the committing thread hands them over and
 * returns at once, so that it gives its JDBC connection back to the pool without waiting
 * for Redis. Consecutive dispatches of several transactions go in one
 * {@link JobDispatcher#dispatchAll}; a timer call runs after the steps before it.
 * <p>
 * At most {@value #MAX_PENDING} steps wait: the steps of a transaction that commits while
 * that many wait (Redis down or too slow) are not sent; they fail and are logged, as a
 * send that fails is. The thread starts with the first transaction; stopping sends what
 * waits within the close timeout, and later transactions send on their own thread.
 *
 * @author Redq team
 */
final class AfterCommitSender {

	/** The most steps waiting to be sent. */
	static final int MAX_PENDING = 10_000;

	private static final Log logger = LogFactory.getLog(TransactionAwareJobDispatcher.class);

	/** Tells the thread to stop once the steps before it are sent. */
	private static final List<Step> STOP = List.of();

	private final JobDispatcher target;

	/** The steps of each committed transaction, whole, so that one is sent in one go. */
	private final BlockingQueue<List<Step>> pending = new LinkedBlockingQueue<>();

	/** The steps in {@link #pending}. */
	private final AtomicInteger pendingSteps = new AtomicInteger();

	/**
	 * The transactions handed to the thread and not yet sent: while there are any, the
	 * next ones queue behind them.
	 */
	private final AtomicInteger unsentTransactions = new AtomicInteger();

	/**
	 * The dispatches sent through the target's asynchronous path, until Redis answers.
	 */
	private final Set<CompletableFuture<DispatchResult>> inFlight = ConcurrentHashMap.newKeySet();

	private Duration closeTimeout = Duration.ofSeconds(10);

	private volatile boolean closed;

	private volatile @Nullable Thread thread;

	AfterCommitSender(JobDispatcher target) {
		this.target = target;
	}

	void setCloseTimeout(Duration closeTimeout) {
		this.closeTimeout = closeTimeout;
	}

	/**
	 * Send the steps of a committed transaction after those handed over before. A
	 * transaction of dispatches alone, when nothing waits, goes through the target's
	 * {@link JobDispatcher#dispatchAsync asynchronous path} from the committing thread:
	 * its jobs are checked, intercepted and written there, and sent in batches with the
	 * other asynchronous dispatches. The other transactions queue for this sender's
	 * thread, which runs each timer call once the dispatches before it are in Redis.
	 * @param steps the steps, in order
	 */
	void submit(List<Step> steps) {
		synchronized (this) {
			if (this.closed) {
				// shutting down: sent by the committing thread, as nothing else will
				send(steps);
				return;
			}
			if (this.unsentTransactions.get() > 0 || this.inFlight.size() + steps.size() > MAX_PENDING
					|| !steps.stream().allMatch(Dispatch.class::isInstance)) {
				queue(steps);
				return;
			}
		}
		// outside the lock, so that committing threads write their jobs in parallel
		steps.forEach((step) -> sendAsync((Dispatch) step));
	}

	private void queue(List<Step> steps) {
		int waiting = this.pendingSteps.get();
		// a transaction larger than the limit goes when nothing waits
		if (waiting > 0 && waiting + steps.size() > MAX_PENDING) {
			failed(steps,
					new IllegalStateException("Not sent: " + waiting + " dispatch(es) or timer call(s) of "
							+ "committed transactions still wait to be sent (Redis is down or too slow), at most "
							+ MAX_PENDING + " may"));
			return;
		}
		startThread();
		this.pendingSteps.addAndGet(steps.size());
		this.unsentTransactions.incrementAndGet();
		this.pending.add(steps);
	}

	private void sendAsync(Dispatch dispatch) {
		CompletableFuture<DispatchResult> result;
		try {
			result = this.target.dispatchAsync(dispatch.request());
		}
		catch (RuntimeException ex) {
			failed(List.of(dispatch), ex);
			return;
		}
		this.inFlight.add(result);
		result.whenComplete((sent, ex) -> {
			this.inFlight.remove(result);
			if (ex != null) {
				failed(List.of(dispatch),
						(ex instanceof Exception exception) ? exception : new IllegalStateException(ex));
			}
			else {
				dispatch.complete(sent);
			}
		});
	}

	private void startThread() {
		if (this.thread == null) {
			Thread thread = new CustomizableThreadFactory("redq-after-commit-").newThread(this::sendPending);
			thread.setDaemon(true);
			this.thread = thread;
			thread.start();
		}
	}

	private void sendPending() {
		List<List<Step>> batch = new ArrayList<>();
		while (this.thread == Thread.currentThread()) {
			try {
				batch.add(this.pending.take());
			}
			catch (InterruptedException ex) {
				// only stopping ends the thread, once the steps before it are sent
				continue;
			}
			this.pending.drainTo(batch);
			boolean stop = batch.removeIf((transaction) -> transaction == STOP);
			List<Step> steps = batch.stream().flatMap(List::stream).toList();
			this.pendingSteps.addAndGet(-steps.size());
			send(steps);
			this.unsentTransactions.addAndGet(-batch.size());
			batch.clear();
			if (stop) {
				return;
			}
		}
	}

	/**
	 * Send steps in order: each run of dispatches in one call, each timer call after it.
	 */
	private void send(List<Step> steps) {
		List<Dispatch> run = new ArrayList<>();
		for (Step step : steps) {
			if (step instanceof Dispatch dispatch) {
				run.add(dispatch);
			}
			else {
				dispatch(run);
				run.clear();
				if (step instanceof Call call) {
					call(call, call.action());
				}
				else {
					call(step, ((WorkflowDispatch) step).send());
				}
			}
		}
		dispatch(run);
	}

	private void dispatch(List<Dispatch> run) {
		if (run.isEmpty()) {
			return;
		}
		List<DispatchResult> results;
		try {
			results = this.target.dispatchAll(run.stream().map(Dispatch::request).toList());
		}
		catch (RuntimeException ex) {
			failed(run, ex);
			return;
		}
		for (int i = 0; i < run.size(); i++) {
			run.get(i).complete(results.get(i));
		}
	}

	/**
	 * Run a timer call or send a batch or chain.
	 */
	private void call(Step call, BooleanSupplier action) {
		try {
			// after the dispatches sent asynchronously before it
			CompletableFuture.allOf(this.inFlight.toArray(CompletableFuture[]::new)).exceptionally((ex) -> null).join();
			boolean done = action.getAsBoolean();
			if (logger.isDebugEnabled()) {
				logger.debug("After commit: " + call.description() + ": " + done);
			}
		}
		catch (RuntimeException ex) {
			failed(List.of(call), ex);
		}
	}

	private static void failed(List<? extends Step> steps, Exception ex) {
		// a timeout leaves the call with the Redis client, which may still deliver it
		String outcome = (ex instanceof DispatchTimeoutException || ex instanceof QueryTimeoutException)
				? "Redis did not answer in time, so they may be applied later or not at all" : "they are not applied";
		logger.error("Failed to send " + steps.size() + " dispatch(es) or timer call(s) of transactions that "
				+ "committed; " + outcome + ": " + TransactionalDispatches.describe(steps), ex);
		for (Step step : steps) {
			if (step instanceof Dispatch dispatch) {
				dispatch.fail(ex);
			}
		}
	}

	/**
	 * Take transactions again after {@link #stop()}.
	 */
	synchronized void start() {
		this.closed = false;
	}

	/**
	 * Send the steps still waiting, for at most the close timeout, then stop the thread;
	 * those not sent by then fail. Transactions that commit later send their steps on
	 * their own thread.
	 */
	void stop() {
		Thread thread;
		synchronized (this) {
			this.closed = true;
			thread = this.thread;
			if (thread != null) {
				this.pending.add(STOP);
			}
		}
		if (thread == null) {
			return;
		}
		try {
			thread.join(this.closeTimeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		List<List<Step>> left = new ArrayList<>();
		synchronized (this) {
			// a thread still waiting for Redis ends after that call
			this.thread = null;
			this.pending.drainTo(left);
		}
		List<Step> unsent = left.stream().flatMap(List::stream).toList();
		this.pendingSteps.addAndGet(-unsent.size());
		this.unsentTransactions.addAndGet(-left.size());
		if (!unsent.isEmpty()) {
			failed(unsent, new IllegalStateException("Redis did not take this step within "
					+ this.closeTimeout.toMillis() + " ms of the dispatcher closing; it was not sent"));
		}
	}

	boolean isRunning() {
		return !this.closed;
	}

}
