package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.redq.queue.redis.Gates;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * The worker threads of a container and the reserved jobs it holds: a reserved job waits
 * in the pool's queue (the prefetch) until a worker takes it, reads it, lets it through
 * its gates and runs its handler, with a timeout.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobWorkerPool {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final BooleanSupplier running;

	private final ListenerOperations operations;

	private final Map<String, JobHandler> handlers;

	private final JobLeaseKeeper leaseKeeper;

	private final JobOutcomes outcomes;

	private final JobPrefetch prefetch;

	/** The reserved jobs, waiting or running, by lease token. */
	private final Map<String, JobExecution> inFlight = new ConcurrentHashMap<>();

	private volatile JobInterceptors interceptors = JobInterceptors.NONE;

	private @Nullable ThreadPoolExecutor workers;

	private @Nullable ScheduledExecutorService scheduler;

	JobWorkerPool(String queue, BooleanSupplier running, ListenerOperations operations,
			Map<String, JobHandler> handlers, JobLeaseKeeper leaseKeeper, JobOutcomes outcomes, JobPrefetch prefetch) {
		this.queue = queue;
		this.running = running;
		this.operations = operations;
		this.handlers = handlers;
		this.leaseKeeper = leaseKeeper;
		this.outcomes = outcomes;
		this.prefetch = prefetch;
	}

	void setInterceptors(JobInterceptors interceptors) {
		this.interceptors = interceptors;
	}

	/**
	 * Start the workers of a container run.
	 * @param concurrency how many jobs run at once
	 * @param threadFactory the factory of the worker threads
	 * @param scheduler the run's scheduler, for timeouts
	 */
	void start(int concurrency, ThreadFactory threadFactory, ScheduledExecutorService scheduler) {
		// the work queue holds the prefetched jobs; permits bound it
		this.workers = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
				new LinkedBlockingDeque<>(), threadFactory);
		this.scheduler = scheduler;
	}

	void stop() {
		this.workers.shutdownNow();
	}

	/**
	 * Return the reserved jobs, waiting or running.
	 * @return a live view
	 */
	Collection<JobExecution> executions() {
		return this.inFlight.values();
	}

	/**
	 * Hand a reserved job to the workers; it keeps its permit until it is settled.
	 * @param job the job
	 * @param permits the permits of the container run that reserved it
	 * @param leaseEndNanos when its lease runs out by {@link System#nanoTime()}, counted
	 * from before the reservation was sent
	 * @param admittedTo the gates it was let through as it was handed over, or
	 * {@code null}
	 */
	void submit(ReservedJob job, Semaphore permits, long leaseEndNanos, @Nullable Gates admittedTo) {
		execute(track(job, permits, leaseEndNanos, admittedTo));
	}

	/**
	 * Hand a job, and the jobs of its run after it, to a worker, which runs them one
	 * after another: a run reaches the workers whole, since its jobs share one place.
	 */
	private void execute(JobExecution first) {
		try {
			this.workers.execute(new Start(first));
		}
		catch (RejectedExecutionException ex) {
			// reserved while the container stopped
			List<Lease> leases = new ArrayList<>();
			for (JobExecution execution = first; execution != null; execution = execution.nextInRun()) {
				this.inFlight.remove(execution.job().token());
				if (execution.settle()) {
					leases.add(execution.job().lease());
				}
			}
			first.permits().release();
			handBack(leases, true);
			leaveAdmitted(first);
		}
	}

	/**
	 * Hold a job handed over as a run left its gates, and the jobs that joined its run,
	 * linked in the order they run; return the first.
	 */
	private JobExecution track(JobLeaseKeeper.HandedOver handed, Semaphore permits) {
		JobExecution first = track(handed.job(), permits, handed.leaseEndNanos(), handed.admittedTo());
		JobExecution last = first;
		for (ReservedJob job : handed.run()) {
			JobExecution joined = track(job, permits, handed.leaseEndNanos(), handed.admittedTo());
			last.runNext(joined);
			last = joined;
		}
		return first;
	}

	/**
	 * Hold a reserved job until it is settled: its lease is renewed from now on.
	 */
	private JobExecution track(ReservedJob job, Semaphore permits, long leaseEndNanos, @Nullable Gates admittedTo) {
		JobExecution execution = new JobExecution(job, this.queue, permits, this.leaseKeeper, this.operations,
				() -> !this.running.getAsBoolean(), leaseEndNanos, admittedTo);
		this.inFlight.put(job.token(), execution);
		return execution;
	}

	/**
	 * Return how many reserved jobs wait for a worker.
	 */
	int waitingCount() {
		return this.workers.getQueue().size();
	}

	/**
	 * Withdraw jobs that wait for a worker, the latest first.
	 * @param max how many at most
	 * @param minWaitNanos how long a job must have waited to go
	 * @return the leases of the withdrawn jobs, to hand back
	 */
	List<Lease> withdrawWaiting(int max, long minWaitNanos) {
		List<Start> candidates = new ArrayList<>(max);
		long now = System.nanoTime();
		Iterator<Runnable> latestFirst = ((LinkedBlockingDeque<Runnable>) this.workers.getQueue()).descendingIterator();
		while (candidates.size() < max && latestFirst.hasNext()) {
			Start start = (Start) latestFirst.next();
			// a job let through its gates as it was handed over keeps its place: handed
			// back, it would hold the place idle until its hold ran out
			if (now - start.queuedNanos > minWaitNanos && start.execution.admittedTo() == null) {
				candidates.add(start);
			}
		}
		List<Lease> withdrawn = new ArrayList<>(candidates.size());
		for (Start start : candidates) {
			// a worker may have taken it meanwhile
			if (this.workers.remove(start) && withdraw(start.execution)) {
				withdrawn.add(start.execution.job().lease());
			}
		}
		return withdrawn;
	}

	/**
	 * Forget a reserved job that no worker will start, freeing its place.
	 * @return whether its lease is still to be handed back (it was not lost meanwhile)
	 */
	private boolean withdraw(JobExecution execution) {
		this.inFlight.remove(execution.job().token());
		execution.permits().release();
		return execution.settle();
	}

	/**
	 * Interrupt the running jobs and hand back every job not settled yet, so that another
	 * worker gets them at once: the shutdown timeout passed.
	 * @param shutdownTimeout the timeout, for the log
	 */
	void releaseRunningJobs(Duration shutdownTimeout) {
		List<Lease> running = new ArrayList<>();
		List<JobExecution> waiting = new ArrayList<>();
		for (JobExecution execution : this.inFlight.values()) {
			if (execution.settle()) {
				// a job reserved ahead that no worker started gets its attempt back
				if (execution.isStarted()) {
					running.add(execution.job().lease());
				}
				else {
					waiting.add(execution);
				}
				execution.interrupt();
			}
		}
		if (!running.isEmpty()) {
			logger.warn("Shutdown timeout of " + shutdownTimeout + " passed; interrupted " + running.size()
					+ " running job(s) of queue '" + this.queue + "' and handed them back");
		}
		handBack(running, false);
		handBack(waiting.stream().map((execution) -> execution.job().lease()).toList(), true);
		// a later job of a run leaves the place to the worker of the job that runs before
		// it, which goes on to the last of the run
		waiting.stream().filter(JobExecution::holdsOwnPlace).forEach(this::leaveAdmitted);
	}

	/**
	 * Leave the gates a job handed back before it ran was let through as it was handed
	 * over, waking their lines, so that its place does not stay taken until its hold runs
	 * out; no job of its run runs.
	 */
	private void leaveAdmitted(JobExecution execution) {
		Gates admittedTo = execution.admittedTo();
		if (admittedTo != null) {
			this.leaseKeeper.leave(execution, admittedTo, false);
		}
	}

	void handBack(List<Lease> leases, boolean undoAttempt) {
		if (leases.isEmpty()) {
			return;
		}
		try {
			this.operations.getLeaseOperations().release(this.queue, leases, undoAttempt);
		}
		catch (RuntimeException ex) {
			logger.error("Could not hand back " + leases.size() + " job(s) of queue '" + this.queue
					+ "'; they may run again once their lease expires", ex);
		}
	}

	/**
	 * Run a job, then the jobs of its run, and then each job handed over to this worker
	 * as the one before it left its gates, while no other job waits for a worker: a drain
	 * behind a limit goes on without a hand-off between threads.
	 */
	private void run(JobExecution first) {
		for (JobExecution execution = first; execution != null;) {
			execution = runAndHandOn(execution);
		}
	}

	/**
	 * Run a job; return the next job of its run, or the job handed over as it left its
	 * gates, when this worker runs it next, else {@code null}.
	 */
	private @Nullable JobExecution runAndHandOn(JobExecution execution) {
		execution.takenBy(Thread.currentThread());
		JobLeaseKeeper.HandedOver next = null;
		boolean ended = false;
		JobExecution following = null;
		JobExecution inRun = execution.nextInRun();
		try {
			next = attempt(execution);
			ended = true;
		}
		finally {
			// let through its gates as it was handed over, it ended before its handler
			// ran (which leaves them): the last of its run goes out of them too
			Gates admittedTo = execution.admittedTo();
			if (admittedTo != null && execution.startedNanos() == 0 && inRun == null) {
				next = this.leaseKeeper.leave(execution, admittedTo, this.running.getAsBoolean());
			}
			execution.end();
			long startedNanos = execution.startedNanos();
			if (startedNanos != 0) {
				this.prefetch.recordDuration(System.nanoTime() - startedNanos);
			}
			this.inFlight.remove(execution.job().token());
			execution.finish();
			// the next job of its run, or the job that takes the place it left, takes its
			// permit
			if (inRun != null) {
				if (ended) {
					following = inRun;
				}
				else {
					execute(inRun);
				}
			}
			else if (next == null) {
				execution.permits().release();
			}
			else if (ended && waitingCount() == 0) {
				following = track(next, execution.permits());
			}
			else {
				execute(track(next, execution.permits()));
			}
		}
		return following;
	}

	/**
	 * Read a job, let it through its gates and run its handler; return the job handed
	 * over as it left its gates, or {@code null}.
	 */
	private JobLeaseKeeper.@Nullable HandedOver attempt(JobExecution execution) {
		JobLeaseKeeper.HandedOver next = null;
		try {
			if (!this.running.getAsBoolean()) {
				// prefetched, and the container stops before it started
				if (execution.settle()) {
					handBack(List.of(execution.job().lease()), true);
				}
				return null;
			}
			if (execution.isSettled()) {
				// its lease was lost while it waited: it may run elsewhere already
				return null;
			}
			JobEnvelope envelope;
			try {
				envelope = JobEnvelope.read(execution.job().envelope());
			}
			catch (JacksonException ex) {
				this.outcomes.bury(execution,
						"Malformed job: its data in Redis is not a Redq job envelope: " + ex.getOriginalMessage());
				return null;
			}
			if (envelope == null || envelope.job() == null) {
				this.outcomes.bury(execution,
						"Malformed job: its data in Redis is not a Redq job envelope: it names no job");
				return null;
			}
			if (envelope.timeout() != null && envelope.timeout() < 0) {
				this.outcomes.bury(execution, "Malformed job: its timeout is " + envelope.timeout()
						+ " ms; a timeout is 0 (no limit) or a positive number of ms");
				return null;
			}
			JobHandler handler = this.handlers.get(envelope.job());
			if (handler == null) {
				this.outcomes.bury(execution, "No handler for job '" + envelope.job() + "' in this application (queue '"
						+ this.queue + "' has handlers for " + this.handlers.keySet() + ")");
				return null;
			}
			// set before anything can fail, so that a failure is retried as defined
			execution.resolve(envelope, handler);
			Object payload = handler.readPayload(envelope.payload());
			execution.payload(payload);
			Gates gates = this.leaseKeeper.gates(handler, payload, envelope.group());
			if (!start(execution, gates)) {
				return null;
			}
			execution.begin(gates);
			Duration timeout = execution.timeout();
			if (!timeout.isZero()) {
				execution.timeoutTask(this.scheduler.schedule(() -> this.outcomes.timedOut(execution),
						timeout.toMillis(), TimeUnit.MILLISECONDS));
			}
			Object result;
			try {
				result = this.interceptors.run(handler, payload, execution);
			}
			catch (Throwable ex) {
				if (gates != null && execution.nextInRun() == null) {
					next = this.leaseKeeper.leave(execution, gates, this.running.getAsBoolean());
				}
				throw ex;
			}
			// a job of a run but its last leaves the place to the next
			if (gates == null || execution.nextInRun() != null) {
				this.outcomes.completed(execution, result);
			}
			else if (this.leaseKeeper.completesOnLeave() && execution.holdsOwnPlace()
					&& this.outcomes.settleForLeave(execution, result)) {
				next = this.leaseKeeper.completeAndLeave(execution, gates, this.running.getAsBoolean());
				this.outcomes.acknowledgedOnLeave(execution);
			}
			else {
				next = this.leaseKeeper.leave(execution, gates, this.running.getAsBoolean());
				this.outcomes.completed(execution, result);
			}
		}
		catch (Throwable ex) {
			// the next attempt resumes where this one ended
			execution.flushProgress();
			if (stoppedBy(ex)) {
				if (execution.settle()) {
					logger.info(ex.getMessage());
					handBack(List.of(execution.job().lease()), true);
				}
			}
			else {
				this.outcomes.failed(execution, ex);
			}
		}
		return next;
	}

	/**
	 * Write the progress of the running jobs that reported since their last write, as the
	 * interval allows.
	 */
	void writeProgress() {
		this.inFlight.values().forEach(JobExecution::writeProgressIfDue);
	}

	/**
	 * Return whether a handler ended because its container stops between the steps of its
	 * iteration: the job goes back without using an attempt.
	 */
	private static boolean stoppedBy(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof JobStoppedException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Give a job about to start the full lease, past its gates if it has any;
	 * {@code false} when it must not start: it waits for its gates, its lease was lost
	 * while it waited (it may run elsewhere already), or Redis could not be reached. Then
	 * it is left to its lease, and runs again once that expired, as a stall that uses no
	 * attempt: a start whose reply was lost does not count as a run.
	 */
	private boolean start(JobExecution execution, @Nullable Gates gates) {
		try {
			return (gates != null) ? this.leaseKeeper.admit(execution, gates) : this.leaseKeeper.start(execution);
		}
		catch (RuntimeException ex) {
			if (execution.settle()) {
				logger.warn("Job " + execution.getId() + " of queue '" + this.queue + "' was not started: its start "
						+ "could not be recorded in Redis; it runs again once its lease expired: " + ex);
			}
			return false;
		}
	}

	/**
	 * A reserved job waiting for a worker: the worker queue's entries, so that
	 * {@link #withdrawWaiting} can find the jobs it withdraws.
	 */
	private final class Start implements Runnable {

		private final JobExecution execution;

		private final long queuedNanos = System.nanoTime();

		Start(JobExecution execution) {
			this.execution = execution;
		}

		@Override
		public void run() {
			JobWorkerPool.this.run(this.execution);
		}

	}

}
