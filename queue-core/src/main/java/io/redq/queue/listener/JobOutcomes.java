package io.redq.queue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import io.redq.queue.core.JobMetrics;
import io.redq.queue.event.JobDeadEvent;
import io.redq.queue.redis.ListenerOperations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Settles the attempts of a container's jobs: a completed job is acknowledged, a failed
 * or timed-out one is retried or dies as its {@link JobErrorHandler} decides (and a dead
 * one goes to the handler's recoverer), an unreadable one dies; each outcome is reported
 * to the metrics and to the interceptors; a death is also published as a
 * {@link JobDeadEvent}.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobOutcomes {

	private static final int MAX_ERROR_LENGTH = 4000;

	/**
	 * Decides for the jobs of a container without an error handler, and for a failing
	 * one.
	 */
	private static final JobErrorHandler FALLBACK_ERROR_HANDLER = new DefaultJobErrorHandler();

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final ListenerOperations operations;

	private final JobAcknowledger acknowledger;

	private JobMetrics metrics = JobMetrics.NONE;

	private JobErrorHandler errorHandler = FALLBACK_ERROR_HANDLER;

	private volatile JobInterceptors interceptors = JobInterceptors.NONE;

	private Map<String, DeadJobCallback> deadJobCallbacks = Map.of();

	private Object eventSource = this;

	private ApplicationEventPublisher eventPublisher = (event) -> {
	};

	JobOutcomes(String queue, ListenerOperations operations, JobAcknowledger acknowledger) {
		this.queue = queue;
		this.operations = operations;
		this.acknowledger = acknowledger;
	}

	void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
	}

	void setErrorHandler(JobErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	void setInterceptors(JobInterceptors interceptors) {
		this.interceptors = interceptors;
	}

	void setDeadJobCallbacks(Map<String, DeadJobCallback> deadJobCallbacks) {
		this.deadJobCallbacks = Map.copyOf(deadJobCallbacks);
	}

	void setEventPublisher(Object eventSource, ApplicationEventPublisher eventPublisher) {
		this.eventSource = eventSource;
		this.eventPublisher = eventPublisher;
	}

	/**
	 * Acknowledge a completed job with its result; a result that cannot be kept (too
	 * large, or not writable as JSON) fails the job at once instead, since another
	 * attempt would return the like.
	 */
	void completed(JobExecution execution, @Nullable Object result) {
		String written = null;
		if (result != null) {
			try {
				written = this.operations.getProgressOperations().writeResult(execution.getId(), result);
			}
			catch (IllegalArgumentException ex) {
				// the message says all: a cause would repeat it in the job's error
				failed(execution, new JobRejectedException(ex.getMessage()));
				return;
			}
		}
		if (execution.settle()) {
			this.acknowledger.add(execution.job().lease(), written, execution.wroteProgress());
			report(execution, JobMetrics.Outcome.COMPLETED, null);
			this.interceptors.afterSuccess(execution);
		}
	}

	/**
	 * Settle a completed job whose acknowledgement goes with the leave of its gates
	 * ({@link JobLeaseKeeper#completeAndLeave}): one that returned nothing and wrote no
	 * progress, which the acknowledgement would write.
	 * @return whether the caller acknowledges it and then calls
	 * {@link #acknowledgedOnLeave}; {@code false} when it is to go through
	 * {@link #completed} (it returned a result or wrote progress) or was settled already
	 * (it timed out or lost its lease)
	 */
	boolean settleForLeave(JobExecution execution, @Nullable Object result) {
		return result == null && !execution.wroteProgress() && execution.settle();
	}

	/**
	 * Report a job completed whose acknowledgement went with the leave of its gates.
	 */
	void acknowledgedOnLeave(JobExecution execution) {
		report(execution, JobMetrics.Outcome.COMPLETED, null);
		this.interceptors.afterSuccess(execution);
	}

	void failed(JobExecution execution, Throwable ex) {
		if (!execution.settle()) {
			logger.debug("Job " + execution.getId() + " failed after its outcome was settled", ex);
			return;
		}
		// without a handler the job failed before it could be read: nothing to retry
		JobHandler handler = execution.handler();
		Duration delay = (handler != null) ? retryDelay(execution, handler, ex) : null;
		String error = describe(ex);
		if (delay != null) {
			logger.warn("Job " + execution.getId() + " (" + handler.getDefinition().name() + ") failed on attempt "
					+ execution.getAttempt() + " of " + execution.getMaxAttempts() + ", retrying in " + delay + ": "
					+ error);
		}
		else {
			logger.error("Job " + execution.getId() + " failed on attempt " + execution.getAttempt() + " and is dead: "
					+ error, ex);
		}
		settleFailure(execution, handler, ex, error, StackTraceText.of(ex), delay);
	}

	/**
	 * Interrupt a handler that ran past its timeout and fail its attempt; its late result
	 * is discarded.
	 */
	void timedOut(JobExecution execution) {
		if (execution.settle()) {
			execution.loseLease();
			execution.interrupt();
			JobHandler handler = execution.handler();
			Duration timeout = execution.timeout();
			String error = "Timed out after " + timeout + ": the handler was interrupted";
			TimeoutException ex = new TimeoutException(error);
			Duration delay = retryDelay(execution, handler, ex);
			logger.warn("Job " + execution.getId() + " (" + handler.getDefinition().name() + ") timed out after "
					+ timeout + " on attempt " + execution.getAttempt()
					+ ((delay != null) ? ", retrying in " + delay : " and is dead"));
			settleFailure(execution, handler, ex, error, null, delay);
		}
	}

	/**
	 * Return the delay before the job's next attempt, or {@code null} when it dies: a
	 * rejection or an exception the job does not retry ends it, otherwise its error
	 * handler decides.
	 */
	private @Nullable Duration retryDelay(JobExecution execution, JobHandler handler, Throwable ex) {
		if (ex instanceof JobRejectedException
				|| DefaultJobErrorHandler.isCausedByAnyOf(ex, handler.getNotRetryableExceptions())) {
			return null;
		}
		try {
			Duration delay = errorHandler(handler).retryDelay(execution, handler.getDefinition(), ex);
			// a negative delay would bury the job
			return (delay != null && delay.isNegative()) ? Duration.ZERO : delay;
		}
		catch (RuntimeException handlerFailure) {
			logger.error("Error handler of job " + execution.getId() + " failed; the job is retried as its "
					+ "definition says", handlerFailure);
			return FALLBACK_ERROR_HANDLER.retryDelay(execution, handler.getDefinition(), ex);
		}
	}

	/**
	 * Report a failed attempt and record it in Redis, with the stack trace of an
	 * exception a handler threw (none for a timeout or a rejection, whose trace would
	 * show only Redq's own code); once the job is recorded dead, hand it to its error
	 * handler's recovery.
	 */
	private void settleFailure(JobExecution execution, @Nullable JobHandler handler, Throwable ex, String error,
			@Nullable String stackTrace, @Nullable Duration retryDelay) {
		report(execution, (retryDelay != null) ? JobMetrics.Outcome.RETRIED : JobMetrics.Outcome.DEAD, ex);
		if (!recordFailure(execution, error, stackTrace, retryDelay)) {
			return;
		}
		// a job buried before it was read has no handler: it never met the interceptors
		if (handler != null) {
			this.interceptors.afterFailure(execution, ex, retryDelay);
		}
		if (retryDelay == null) {
			if (handler != null) {
				recover(execution, handler, ex);
				deadJobCallback(execution, handler, ex);
				this.interceptors.afterDeath(execution, ex);
			}
			publishDeath(execution, handler, ex);
		}
	}

	private void publishDeath(JobExecution execution, @Nullable JobHandler handler, Throwable ex) {
		try {
			this.eventPublisher.publishEvent(new JobDeadEvent(this.eventSource, this.queue, execution.getId(),
					(handler != null) ? handler.getDefinition().name() : null, execution.getAttempt(), ex));
		}
		catch (RuntimeException publishFailure) {
			logger.warn("Could not publish the death of job " + execution.getId(), publishFailure);
		}
	}

	private void recover(JobExecution execution, JobHandler handler, Throwable ex) {
		try {
			errorHandler(handler).recover(execution, ex);
		}
		catch (RuntimeException recoveryFailure) {
			logger.error("Could not recover dead job " + execution.getId() + "; it stays dead", recoveryFailure);
		}
	}

	private void deadJobCallback(JobExecution execution, JobHandler handler, Throwable ex) {
		DeadJobCallback callback = this.deadJobCallbacks.get(handler.getDefinition().name());
		if (callback == null) {
			return;
		}
		try {
			callback.jobDied(execution.payload(), execution, ex);
		}
		catch (Exception callbackFailure) {
			logger.error(
					"Dead-job handler " + callback + " of job " + execution.getId() + " failed; the job stays dead",
					callbackFailure);
		}
	}

	private JobErrorHandler errorHandler(JobHandler handler) {
		JobErrorHandler errorHandler = handler.getErrorHandler();
		return (errorHandler != null) ? errorHandler : this.errorHandler;
	}

	/**
	 * Send a job this container cannot run to dead, with the reason.
	 */
	void bury(JobExecution execution, String reason) {
		if (execution.settle()) {
			logger.error("Job " + execution.getId() + " of queue '" + this.queue + "' is dead: " + reason);
			settleFailure(execution, null, new JobRejectedException(reason), reason, null, null);
		}
	}

	void report(JobExecution execution, JobMetrics.Outcome outcome, @Nullable Throwable error) {
		JobHandler handler = execution.handler();
		String job = (handler != null) ? handler.getDefinition().name() : "unknown";
		long startedNanos = execution.startedNanos();
		Duration processing = (startedNanos != 0) ? Duration.ofNanos(System.nanoTime() - startedNanos) : Duration.ZERO;
		try {
			this.metrics.processed(this.queue, job, outcome, error, processing, execution.waited());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not report the outcome of job " + execution.getId(), ex);
		}
	}

	/**
	 * Record a failed attempt in Redis.
	 * @return whether it was recorded: the lease was still held and Redis answered
	 */
	private boolean recordFailure(JobExecution execution, String error, @Nullable String stackTrace,
			@Nullable Duration retryDelay) {
		try {
			if (this.operations.getLeaseOperations()
				.fail(this.queue, execution.job().lease(), error, stackTrace, retryDelay)) {
				return true;
			}
			logger.warn("Failure of job " + execution.getId() + " refused: its lease was lost to another worker");
		}
		catch (RuntimeException ex) {
			logger.error("Could not record the failure of job " + execution.getId()
					+ "; it may run again once its lease expires", ex);
		}
		return false;
	}

	private static String describe(Throwable ex) {
		StringBuilder error = new StringBuilder(ex.getClass().getName());
		if (ex.getMessage() != null) {
			error.append(": ").append(ex.getMessage());
		}
		for (Throwable cause = ex.getCause(); cause != null && cause != ex; cause = cause.getCause()) {
			error.append("; caused by ").append(cause.getClass().getName());
			if (cause.getMessage() != null) {
				error.append(": ").append(cause.getMessage());
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return (error.length() > MAX_ERROR_LENGTH) ? error.substring(0, MAX_ERROR_LENGTH) : error.toString();
	}

}
