package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongToIntFunction;

import io.redq.queue.redis.GateOperations;
import io.redq.queue.redis.Gates;
import io.redq.queue.core.JobLimits;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * Keeps the leases of a container's jobs and the gates running jobs hold under them:
 * renews both while the jobs wait and run, lets jobs through their limits (exclusive key,
 * running limits, rate limit) before they start and out after, and tells a job whose
 * lease was lost.
 *
 * <p>
 * A job is reserved with the full lease and counts as started in Redis from then on: the
 * container reserves only what its workers start within about 100 ms, and a worker starts
 * it on that lease without another call. A job that waits for a worker longer is renewed
 * with the short lease of a waiting job
 * ({@link ContainerProperties#getWaitingLeaseTime()}) every third of that, so that
 * another instance takes it soon when this one stalls or dies; a worker that then finds
 * less than two thirds of the full lease left starts it with a call that gives it the
 * full lease (shared with the other workers' starts meanwhile), so that every run holds
 * the configured lease from its start. The next renewal confirms that the run started,
 * which decides whether its lease expiring uses an attempt or is a stall. A start whose
 * reply was lost confirms nothing.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobLeaseKeeper {

	private static final SpelExpressionParser EXPRESSION_PARSER = new SpelExpressionParser();

	private static final EvaluationContext EXCLUSIVE_KEY_CONTEXT = SimpleEvaluationContext.forReadOnlyDataBinding()
		.withInstanceMethods()
		.build();

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	/**
	 * How many more jobs may join the run of a job handed over past the gates a run left
	 * after a job that ran for the given nanoseconds ({@link JobPrefetch#runSize(long)}).
	 */
	private final LongToIntFunction runSize;

	private final RepeatedFailureLog failureLog;

	private final ListenerOperations operations;

	private final Duration leaseTime;

	private final Duration waitingLeaseTime;

	private final int maxRunning;

	private final int groupMaxRunning;

	private final Map<String, Expression> exclusiveKeys = new HashMap<>();

	private final JobOutcomes outcomes;

	private final SharedCalls<JobExecution> starts = new SharedCalls<>(this::startAll);

	JobLeaseKeeper(String queue, ListenerOperations operations, ContainerProperties properties,
			Collection<JobHandler> handlers, JobOutcomes outcomes, LongToIntFunction runSize) {
		this.queue = queue;
		this.runSize = runSize;
		this.failureLog = new RepeatedFailureLog(logger, "renew the leases of jobs of queue '" + queue + "'");
		this.operations = operations;
		this.leaseTime = properties.getLeaseTime();
		this.waitingLeaseTime = properties.getWaitingLeaseTime();
		this.maxRunning = properties.getMaxRunning();
		this.groupMaxRunning = properties.getGroupMaxRunning();
		this.outcomes = outcomes;
		for (JobHandler handler : handlers) {
			String exclusiveKey = handler.getDefinition().limits().exclusiveKey();
			if (exclusiveKey != null) {
				this.exclusiveKeys.put(handler.getDefinition().name(), EXPRESSION_PARSER.parseExpression(exclusiveKey));
			}
		}
	}

	/**
	 * Return how often {@link #renew} is to be called: every third of the waiting lease.
	 * @return the interval in ms
	 */
	long renewalIntervalMillis() {
		return Math.max(10, this.waitingLeaseTime.toMillis() / 3);
	}

	/**
	 * Renew the leases of the jobs the container holds, and the gates of those that hold
	 * gates, when one needs it: a job that waits for a worker (or was taken by one and
	 * has not started), a run not confirmed started yet, or a run with at most two thirds
	 * of its full lease left (renewed every third of it). Runs get the full lease and are
	 * confirmed started; waiting jobs get the waiting lease.
	 * @param executions the jobs the container holds
	 */
	void renew(Collection<JobExecution> executions) {
		List<JobExecution> held = new ArrayList<>(executions);
		held.removeIf((execution) -> execution.isSettled() || execution.isLeaseLost());
		long renewDue = renewalDueNanos();
		if (held.stream()
			.noneMatch((execution) -> !execution.isStarted() || !execution.isConfirmed()
					|| execution.leaseEndsWithin(renewDue))) {
			return;
		}
		try {
			// decided once: a job started meanwhile is renewed as it was sent, and
			// confirmed by the next renewal
			List<JobExecution> started = new ArrayList<>();
			List<JobExecution> waiting = new ArrayList<>();
			held.forEach((execution) -> (execution.isStarted() ? started : waiting).add(execution));
			long renewalNanos = System.nanoTime();
			Set<String> lostTokens = new HashSet<>(this.operations.getLeaseOperations()
				.extend(this.queue, leases(started), leases(waiting), this.leaseTime, this.waitingLeaseTime));
			this.failureLog.succeeded();
			for (JobExecution execution : waiting) {
				if (lostTokens.contains(execution.job().token())) {
					leaseLost(execution);
				}
				else {
					execution.leaseRenewedUntil(renewalNanos + this.waitingLeaseTime.toNanos());
					// let through its gates as it was handed over: it holds them while it
					// waits for a worker
					Gates admittedTo = execution.admittedTo();
					if (admittedTo != null && execution.holdsOwnPlace()) {
						this.operations.getGateOperations()
							.holdGates(this.queue, execution.job().lease(), admittedTo, this.leaseTime);
					}
				}
			}
			for (JobExecution execution : started) {
				if (lostTokens.contains(execution.job().token())) {
					leaseLost(execution);
				}
				else {
					execution.leaseRenewedUntil(renewalNanos + this.leaseTime.toNanos());
					execution.confirm();
					if (execution.gates() != null) {
						this.operations.getGateOperations()
							.holdGates(this.queue, execution.holder(), execution.gates(), this.leaseTime);
					}
				}
			}
		}
		catch (RuntimeException ex) {
			this.failureLog.failed(ex, "holding " + held.size() + " job(s)");
		}
	}

	private static List<Lease> leases(List<JobExecution> executions) {
		return executions.stream().map((execution) -> execution.job().lease()).toList();
	}

	/**
	 * Start a job on the full lease: the lease it was reserved with while at least two
	 * thirds of it are left, else in a call that gives it the full lease again, shared
	 * with the jobs that other workers start meanwhile. A job with gates gets it when it
	 * is admitted instead.
	 * @return whether the lease is still held: {@code false} when another worker may hold
	 * the job now
	 */
	boolean start(JobExecution execution) {
		if (!execution.leaseEndsWithin(renewalDueNanos())) {
			// reserved moments ago with the full lease, and recorded as started then
			execution.started();
			return true;
		}
		return this.starts.send(execution);
	}

	/**
	 * Return how little of its lease a run may have left before it is renewed: two thirds
	 * of the full lease, so that a run is renewed every third of it.
	 */
	private long renewalDueNanos() {
		return this.leaseTime.toNanos() * 2 / 3;
	}

	/**
	 * Give jobs about to start the full lease in one call: the starts that the workers
	 * began while the call before was in flight.
	 * @return whether each lease is still held
	 */
	private List<Boolean> startAll(List<JobExecution> executions) {
		long startNanos = System.nanoTime();
		Set<String> lostTokens = new HashSet<>(
				this.operations.getLeaseOperations().start(this.queue, leases(executions), this.leaseTime));
		List<Boolean> held = new ArrayList<>(executions.size());
		for (JobExecution execution : executions) {
			if (lostTokens.contains(execution.job().token())) {
				leaseLost(execution);
				held.add(false);
			}
			else {
				started(execution, startNanos);
				held.add(true);
			}
		}
		return held;
	}

	private void started(JobExecution execution, long startNanos) {
		execution.leaseRenewedUntil(startNanos + this.leaseTime.toNanos());
		execution.started();
	}

	/**
	 * Extend a running job's lease at its handler's request, and the gates it holds with
	 * it: a job that holds its lease holds its gates.
	 * @return whether the lease is still held
	 */
	boolean extend(JobExecution execution, Duration duration) {
		long renewalNanos = System.nanoTime();
		if (this.operations.getLeaseOperations()
			.extend(this.queue, List.of(execution.job().lease()), List.of(), duration, duration)
			.isEmpty()) {
			execution.leaseRenewedUntil(renewalNanos + duration.toNanos());
			execution.confirm();
			Gates gates = execution.gates();
			if (gates != null) {
				this.operations.getGateOperations().holdGates(this.queue, execution.holder(), gates, duration);
			}
		}
		else {
			leaseLost(execution);
		}
		return !execution.isLeaseLost();
	}

	/**
	 * Tell a job that it lost its lease. A run that started goes on: when it completes,
	 * its acknowledgement is accepted unless another worker reserved the job meanwhile.
	 */
	private void leaseLost(JobExecution execution) {
		execution.loseLease();
		if (execution.isStarted()) {
			if (execution.isSettled()) {
				// its result was reported while the renewal was in flight: its
				// acknowledgement took the lease, and decides
				return;
			}
			logger.warn("Job " + execution.getId() + " lost its lease (this worker stalled past it); its result is "
					+ "accepted only if no other worker reserved the job meanwhile");
		}
		else if (execution.settle()) {
			this.outcomes.report(execution, JobMetrics.Outcome.LEASE_LOST, null);
			logger.warn("Job " + execution.getId() + " lost its lease before it started (this instance stalled past "
					+ "it, or another worker holds the job now); it is not started here");
		}
	}

	/**
	 * Return the gates a job passes before it runs, or {@code null} when it has no
	 * limits.
	 * @throws JobRejectedException when its exclusive key cannot be evaluated
	 */
	@Nullable Gates gates(JobHandler handler, @Nullable Object payload, @Nullable String group) {
		JobLimits limits = handler.getDefinition().limits();
		int groupMaxRunning = (group != null) ? this.groupMaxRunning : 0;
		if (!limits.isLimited() && this.maxRunning == 0 && groupMaxRunning == 0) {
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
		return new Gates(key, handler.getDefinition().name(), limits.maxRunning(), this.maxRunning, limits.rateLimit(),
				group, groupMaxRunning);
	}

	/**
	 * Let a job through its gates with the full lease to start, or settle it to wait in
	 * line without using an attempt.
	 * @return whether the job may run now
	 */
	boolean admit(JobExecution execution, Gates gates) {
		if (gates.equals(execution.admittedTo())) {
			// let through as the run before it left them: it starts as a job without
			// gates
			return start(execution);
		}
		long startNanos = System.nanoTime();
		long wait = this.operations.getGateOperations()
			.admit(this.queue, execution.job().lease(), gates, this.leaseTime);
		if (wait == 0) {
			started(execution, startNanos);
			return true;
		}
		execution.settle();
		if (wait == GateOperations.PARKED) {
			if (logger.isDebugEnabled()) {
				logger.debug("Job " + execution.getId() + " waits in line for its limits " + gates);
			}
		}
		else if (wait < 0) {
			logger.warn("Job " + execution.getId() + " lost its lease before it started");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Job " + execution.getId() + " waits " + wait + "ms for its rate limit " + gates);
		}
		return false;
	}

	/**
	 * Leave the gates of a finished job, under the lease of the run that took its place,
	 * and take the first job woken in their lines, with the jobs that joined its run, for
	 * a worker of this container when {@code handOver} is set.
	 * @return the job taken, with the lease it was reserved with, or {@code null}
	 */
	@Nullable HandedOver leave(JobExecution execution, Gates gates, boolean handOver) {
		long leaveNanos = System.nanoTime();
		try {
			GateOperations.HandOver next = this.operations.getGateOperations()
				.leaveGates(this.queue, execution.holder(), gates, handOver ? this.leaseTime : Duration.ZERO,
						runSize(execution, leaveNanos));
			return handedOver(next, gates, leaveNanos);
		}
		catch (RuntimeException ex) {
			logger
				.warn("Could not leave the limits of job " + execution.getId() + "; they expire with its lease: " + ex);
			return null;
		}
	}

	/**
	 * Return whether {@link #completeAndLeave} may acknowledge a completed job.
	 */
	boolean completesOnLeave() {
		return this.operations.getGateOperations().completesOnLeave();
	}

	/**
	 * Acknowledge a completed job that returned nothing and wrote no progress and leave
	 * its gates in one call, as {@link #leave} does: the acknowledgement of a job that
	 * holds a place others wait for goes with the leave that hands the place on. Only for
	 * a job that took its place itself ({@link JobExecution#holdsOwnPlace()}).
	 * @return the job taken, with the lease it was reserved with, or {@code null}
	 */
	@Nullable HandedOver completeAndLeave(JobExecution execution, Gates gates, boolean handOver) {
		long leaveNanos = System.nanoTime();
		try {
			GateOperations.Completion completion = this.operations.getGateOperations()
				.completeAndLeaveGates(this.queue, execution.job().lease(), gates,
						handOver ? this.leaseTime : Duration.ZERO, runSize(execution, leaveNanos));
			if (completion.refused()) {
				logger.warn("Late acknowledgement of job " + execution.getId() + " refused: its lease expired and "
						+ "another worker has taken the job since");
			}
			return handedOver(completion.next(), gates, leaveNanos);
		}
		catch (RuntimeException ex) {
			logger.error("Could not acknowledge job " + execution.getId() + " of queue '" + this.queue
					+ "' nor leave its limits; it may run again once its lease expires, and its limits expire with it",
					ex);
			return null;
		}
	}

	private int runSize(JobExecution execution, long leaveNanos) {
		long started = execution.startedNanos();
		return this.runSize.applyAsInt((started != 0) ? leaveNanos - started : 0);
	}

	private @Nullable HandedOver handedOver(GateOperations.@Nullable HandOver next, Gates gates, long leaveNanos) {
		return (next != null) ? new HandedOver(next.job(), leaveNanos + this.leaseTime.toNanos(),
				next.admitted() ? gates : null, next.run()) : null;
	}

	/**
	 * A job reserved for a worker as a run left the gates it waited for.
	 *
	 * @param job the job
	 * @param leaseEndNanos when its lease runs out by {@link System#nanoTime()}, counted
	 * from before the call that reserved it
	 * @param admittedTo the gates it was let through in that call (the ones left), or
	 * {@code null} when it still passes its own
	 * @param run the jobs that joined its run, reserved with the same lease, to run after
	 * it in this order under the place it took
	 */
	record HandedOver(ReservedJob job, long leaseEndNanos, @Nullable Gates admittedTo, List<ReservedJob> run) {

	}

}
