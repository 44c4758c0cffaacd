package io.redq.queue.listener;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.JobQueueOperations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Settles the attempts of a container's jobs: a completed job is acknowledged, a failed
 * or timed-out one is retried with backoff or dies, an unreadable one dies; each outcome
 * is reported to the metrics.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobOutcomes {

	private static final int MAX_ERROR_LENGTH = 4000;

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final JobQueueOperations operations;

	private final JobAcknowledger acknowledger;

	private JobMetrics metrics = JobMetrics.NONE;

	JobOutcomes(String queue, JobQueueOperations operations, JobAcknowledger acknowledger) {
		this.queue = queue;
		this.operations = operations;
		this.acknowledger = acknowledger;
	}

	void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
	}

	void completed(JobExecution execution) {
		if (execution.settle()) {
			this.acknowledger.add(execution.job().lease());
			report(execution, JobMetrics.Outcome.COMPLETED, null);
		}
	}

	void failed(JobExecution execution, Throwable ex) {
		if (!execution.settle()) {
			logger.debug("Job " + execution.getId() + " failed after its outcome was settled", ex);
			return;
		}
		JobHandler handler = execution.handler();
		boolean retry = !(ex instanceof JobRejectedException) && handler != null
				&& execution.getAttempt() < execution.getMaxAttempts();
		String error = describe(ex);
		Duration delay = retry ? handler.getDefinition().backoff().delayAfter(execution.getAttempt()) : null;
		if (retry) {
			logger.warn("Job " + execution.getId() + " (" + handler.getDefinition().name() + ") failed on attempt "
					+ execution.getAttempt() + " of " + execution.getMaxAttempts() + ", retrying in " + delay + ": "
					+ error);
		}
		else {
			logger.error("Job " + execution.getId() + " failed on attempt " + execution.getAttempt() + " and is dead: "
					+ error, ex);
		}
		report(execution, retry ? JobMetrics.Outcome.RETRIED : JobMetrics.Outcome.DEAD, ex);
		recordFailure(execution, error, delay);
	}

	/**
	 * Interrupt a handler that ran past its timeout and fail its attempt; its late result
	 * is discarded.
	 */
	void timedOut(JobExecution execution) {
		if (execution.settle()) {
			execution.loseLease();
			execution.interrupt();
			JobDefinition definition = execution.handler().getDefinition();
			Duration timeout = execution.timeout();
			String error = "Timed out after " + timeout + ": the handler was interrupted";
			boolean retry = execution.getAttempt() < execution.getMaxAttempts();
			Duration delay = retry ? definition.backoff().delayAfter(execution.getAttempt()) : null;
			logger.warn("Job " + execution.getId() + " (" + definition.name() + ") timed out after " + timeout
					+ " on attempt " + execution.getAttempt() + (retry ? ", retrying in " + delay : " and is dead"));
			report(execution, retry ? JobMetrics.Outcome.RETRIED : JobMetrics.Outcome.DEAD,
					new TimeoutException(error));
			recordFailure(execution, error, delay);
		}
	}

	/**
	 * Send a job this container cannot run to dead, with the reason.
	 */
	void bury(JobExecution execution, String reason) {
		if (execution.settle()) {
			logger.error("Job " + execution.getId() + " of queue '" + this.queue + "' is dead: " + reason);
			report(execution, JobMetrics.Outcome.DEAD, new JobRejectedException(reason));
			recordFailure(execution, reason, null);
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

	private void recordFailure(JobExecution execution, String error, @Nullable Duration retryDelay) {
		try {
			if (!this.operations.fail(this.queue, execution.job().lease(), error, retryDelay)) {
				logger.warn("Failure of job " + execution.getId() + " refused: its lease was lost to another worker");
			}
		}
		catch (RuntimeException ex) {
			logger.error("Could not record the failure of job " + execution.getId()
					+ "; it may run again once its lease expires", ex);
		}
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
