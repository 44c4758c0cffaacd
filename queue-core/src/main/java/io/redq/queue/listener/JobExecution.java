package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.redis.Gates;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.ProgressFields;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.redis.WireFormat;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One attempt of a job on a container, and the {@link JobContext} its handler sees;
 * exactly one of completion, failure, timeout, lease loss or hand-back settles it.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobExecution implements JobContext {

	private final ReservedJob job;

	private final String queue;

	/**
	 * The places of the container run that reserved the job: a handler that outlives a
	 * stop frees its place there, not in the run after a restart.
	 */
	private final Semaphore permits;

	private final JobLeaseKeeper leaseKeeper;

	private final ListenerOperations operations;

	/** Whether the container stops, which interrupts iterations and steps. */
	private final BooleanSupplier stopping;

	private final AtomicBoolean settled = new AtomicBoolean();

	/**
	 * When the lease runs out by this JVM's monotonic clock ({@link System#nanoTime()}),
	 * as far as this worker knows: counted from before the call that reserved or last
	 * renewed it, so never later than in Redis.
	 */
	private final AtomicLong leaseEndNanos;

	private final @Nullable Gates admittedTo;

	/**
	 * The lease that names the place its run holds past its gates: its own, or that of
	 * the first job of its run.
	 */
	private volatile Lease holder;

	/** The job of its run that runs after it, or {@code null}: it leaves the place. */
	private volatile @Nullable JobExecution nextInRun;

	private volatile @Nullable Thread thread;

	// not this: handlers see the execution as their JobContext and might lock it
	private final Object interruptMonitor = new Object();

	// guarded by interruptMonitor
	private boolean finished;

	private volatile @Nullable JobEnvelope envelope;

	private volatile @Nullable JobHandler handler;

	private volatile @Nullable Object payload;

	private volatile @Nullable Gates gates;

	private volatile int maxAttempts;

	private volatile Duration timeout = Duration.ZERO;

	private volatile boolean leaseLost;

	private volatile boolean started;

	private volatile boolean confirmed;

	private volatile long startedNanos;

	private volatile Duration wait = Duration.ZERO;

	private volatile @Nullable ScheduledFuture<?> timeoutTask;

	private volatile @Nullable JobRunState runState;

	private boolean iterated;

	JobExecution(ReservedJob job, String queue, Semaphore permits, JobLeaseKeeper leaseKeeper,
			ListenerOperations operations, BooleanSupplier stopping, long leaseEndNanos, @Nullable Gates admittedTo) {
		this.job = job;
		this.admittedTo = admittedTo;
		this.queue = queue;
		this.permits = permits;
		this.leaseKeeper = leaseKeeper;
		this.operations = operations;
		this.stopping = stopping;
		this.leaseEndNanos = new AtomicLong(leaseEndNanos);
		this.holder = job.lease();
	}

	ReservedJob job() {
		return this.job;
	}

	Semaphore permits() {
		return this.permits;
	}

	@Nullable JobHandler handler() {
		return this.handler;
	}

	@Nullable Gates gates() {
		return this.gates;
	}

	/**
	 * Return the gates the job was let through as the run before it left them, or
	 * {@code null} when it passes its own ({@link JobLeaseKeeper#admit}).
	 */
	@Nullable Gates admittedTo() {
		return this.admittedTo;
	}

	/**
	 * Let a job that joined the run of this one run after it, under the place this one's
	 * run took (see {@link io.redq.queue.redis.GateOperations#leaveGates}).
	 */
	void runNext(JobExecution next) {
		next.holder = this.holder;
		this.nextInRun = next;
	}

	/**
	 * Return the job of its run that runs after it, or {@code null} when it is the last,
	 * which leaves the place.
	 */
	@Nullable JobExecution nextInRun() {
		return this.nextInRun;
	}

	/**
	 * Return the lease that names the place its run holds: the gates are renewed and left
	 * under it.
	 */
	Lease holder() {
		return this.holder;
	}

	/**
	 * Return whether it took its place itself: it is no later job of a run.
	 */
	boolean holdsOwnPlace() {
		return this.holder.equals(this.job.lease());
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Return when the handler started, or 0 before it did.
	 */
	long startedNanos() {
		return this.startedNanos;
	}

	/**
	 * Return how long the job waited from its due time until its handler started.
	 */
	Duration waited() {
		return this.wait;
	}

	/**
	 * Called by the worker that takes the job.
	 */
	void takenBy(Thread thread) {
		this.thread = thread;
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

	/**
	 * Record the payload as the handler takes it, for a dead-job callback.
	 */
	void payload(@Nullable Object payload) {
		this.payload = payload;
	}

	@Nullable Object payload() {
		return this.payload;
	}

	void begin(@Nullable Gates gates) {
		this.gates = gates;
		this.startedNanos = System.nanoTime();
		Long availableAt = this.envelope.availableAt();
		this.wait = (availableAt != null) ? Duration.ofMillis(Math.max(0, System.currentTimeMillis() - availableAt))
				: Duration.ZERO;
	}

	void timeoutTask(ScheduledFuture<?> timeoutTask) {
		this.timeoutTask = timeoutTask;
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
	 * interrupted it after the handler returned must not reach the next job of the same
	 * thread.
	 */
	void finish() {
		synchronized (this.interruptMonitor) {
			this.finished = true;
			Thread.interrupted();
		}
	}

	/**
	 * Record that Redis renewed the lease until the given time; a renewal never shortens
	 * it.
	 * @param leaseEndNanos the new end of the lease, by {@link System#nanoTime()},
	 * counted from before the renewal was sent
	 */
	void leaseRenewedUntil(long leaseEndNanos) {
		this.leaseEndNanos.accumulateAndGet(leaseEndNanos,
				(current, renewed) -> (renewed - current > 0) ? renewed : current);
	}

	/**
	 * Record that Redis gave the run the full lease to start: from now on its renewals
	 * confirm its start.
	 */
	void started() {
		this.started = true;
	}

	/**
	 * Return whether Redis gave the run the full lease to start.
	 */
	boolean isStarted() {
		return this.started;
	}

	/**
	 * Record that a renewal after its start told Redis that the run started.
	 */
	void confirm() {
		this.confirmed = true;
	}

	/**
	 * Return whether a renewal after its start told Redis that the run started.
	 */
	boolean isConfirmed() {
		return this.confirmed;
	}

	/**
	 * Return whether the lease runs out within the given time by this JVM's clock.
	 * @param nanos the time
	 */
	boolean leaseEndsWithin(long nanos) {
		return this.leaseEndNanos.get() - System.nanoTime() <= nanos;
	}

	/**
	 * Mark the lease lost, so that the handler learns it; settling is up to the caller.
	 */
	void loseLease() {
		this.leaseLost = true;
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
		return this.queue;
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
	public Optional<JobBatch> getBatch() {
		String batchId = getHeaders().get(BatchRequest.BATCH_HEADER);
		return Optional.ofNullable(batchId).map((id) -> new Batch(id, this.operations));
	}

	@Override
	public <T> Optional<T> getPreviousResult(Class<T> type) {
		int step = JobRunState.previousStep(this);
		return this.operations.chainStepResult(getHeaders().get(ChainRequest.CHAIN_HEADER), step, type);
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
		return this.leaseKeeper.extend(this, duration);
	}

	@Override
	public void reportProgress(double fraction, @Nullable String message) {
		JobRunState.checkProgress(fraction, message);
		runState().set(Map.of(ProgressFields.FRACTION, Double.toString(fraction), ProgressFields.MESSAGE,
				(message != null) ? message : ""));
	}

	@Override
	public <C> void iterate(Class<C> cursorType, C start, CursorStep<C> step) throws Exception {
		Assert.notNull(cursorType, "cursorType must not be null");
		Assert.notNull(start, "start must not be null");
		Assert.notNull(step, "step must not be null");
		Assert.state(!this.iterated, () -> "Job " + getId() + " iterates a second time: a job keeps one cursor; "
				+ "give each iteration a step of its own and let the one iteration cover the rest");
		this.iterated = true;
		JobRunState state = runState();
		String kept = state.kept(ProgressFields.CURSOR);
		C cursor = (kept != null) ? WireFormat.jsonMapper().readValue(kept, cursorType) : start;
		while (cursor != null) {
			C at = cursor;
			goOn(state, () -> "at cursor " + WireFormat.jsonMapper().writeValueAsString(at));
			cursor = step.next(cursor);
			// null, once done: a later attempt skips the iteration
			String json = WireFormat.jsonMapper().writeValueAsString(cursor);
			JobRunState.checkCursor(getId(), json);
			state.set(Map.of(ProgressFields.CURSOR, json));
		}
		state.flush();
	}

	@Override
	public void step(String name, Step step) throws Exception {
		JobRunState.checkStepName(name);
		Assert.notNull(step, "step must not be null");
		JobRunState state = runState();
		String field = ProgressFields.step(name);
		if (state.kept(field) != null) {
			return;
		}
		goOn(state, () -> "before step '" + name + "'");
		step.run();
		state.set(Map.of(field, "1"));
		if (!state.flush()) {
			throw new IllegalStateException("Step '" + name + "' of job " + getId() + " ran, but its end could not be "
					+ "written to Redis: a later attempt runs it again");
		}
	}

	/**
	 * Stop an iteration or a run of steps when the container stops, after writing where
	 * the job is, or when the run lost its lease or was interrupted.
	 */
	private void goOn(JobRunState state, Supplier<String> where) throws InterruptedException {
		if (this.stopping.getAsBoolean()) {
			state.flush();
			throw new JobStoppedException("Job " + getId() + " of queue '" + this.queue + "' stopped " + where.get()
					+ " as its container stops; it resumes there on its next run");
		}
		if (this.leaseLost) {
			throw new IllegalStateException("Job " + getId() + " lost its lease " + where.get()
					+ " (this worker stalled past it or it timed out); it may run elsewhere now");
		}
		if (Thread.currentThread().isInterrupted()) {
			throw new InterruptedException("Job " + getId() + " was interrupted " + where.get());
		}
	}

	private JobRunState runState() {
		JobRunState state = this.runState;
		if (state == null) {
			synchronized (this.interruptMonitor) {
				state = this.runState;
				if (state == null) {
					state = new JobRunState(this.operations, this.queue, this.job.lease(),
							getCreatedAt().toEpochMilli(), this::loseLease);
					this.runState = state;
				}
			}
		}
		return state;
	}

	/**
	 * Write the progress and cursor set since the last write if the interval passed: for
	 * a handler that reported and went on without reporting again.
	 */
	void writeProgressIfDue() {
		JobRunState state = this.runState;
		if (state != null) {
			state.writeIfDue();
		}
	}

	/**
	 * Write the progress and cursor set since the last write now: the attempt ended
	 * without completing, and the next one resumes there.
	 */
	void flushProgress() {
		JobRunState state = this.runState;
		if (state != null) {
			state.flush();
		}
	}

	/**
	 * Return whether the run wrote progress, a cursor or a step, which go with the job's
	 * completion.
	 */
	boolean wroteProgress() {
		JobRunState state = this.runState;
		return state != null && state.isWritten();
	}

	/**
	 * The batch of a running job, read through the container's operations.
	 */
	private record Batch(String id, ListenerOperations operations) implements JobBatch {

		@Override
		public String getId() {
			return this.id;
		}

		@Override
		public BatchStatus getStatus() {
			return this.operations.findBatch(this.id)
				.orElseThrow(() -> new IllegalStateException(
						"Batch " + this.id + " is no longer kept: it ended longer ago than redq.batches.linger"));
		}

		@Override
		public <T> List<BatchMemberResult<T>> getResults(Class<T> type, int offset, int count) {
			return this.operations.batchResults(this.id, type, offset, count);
		}

	}

}
