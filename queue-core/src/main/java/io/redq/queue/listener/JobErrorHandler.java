package io.redq.queue.listener;

import java.time.Duration;

import io.redq.queue.core.JobDefinition;
import org.jspecify.annotations.Nullable;

/**
 * Decides what happens to a job whose attempt failed or timed out: another attempt after
 * a delay, or death.
 *
 * <p>
 * A container asks the error handler its factory sets
 * ({@code JobListenerContainerFactory#setErrorHandler}, a {@link DefaultJobErrorHandler}
 * unless set), or the one a job names with {@code @QueuedJob(errorHandler = ...)}. It
 * records the decision in Redis: a retried job waits in the queue's delayed set, a dead
 * one goes to the dead set, and then {@link #recover} is called.
 *
 * <p>
 * Some failures end the job without asking: a {@link JobRejectedException}, an exception
 * the job lists as {@link JobHandler#getNotRetryableExceptions() not retryable} (then
 * {@link #recover} is still called), and a job whose data in Redis is not a job envelope
 * or whose name the container has no handler for (then it is not).
 *
 * @author Redq team
 * @since 0.1.0
 * @see DefaultJobErrorHandler
 */
@FunctionalInterface
public interface JobErrorHandler {

	/**
	 * Decide whether a failed or timed-out attempt is tried again.
	 * @param job the job: {@link JobContext#getAttempt()} is the attempt that failed and
	 * {@link JobContext#getMaxAttempts()} how many the job was dispatched with
	 * @param definition the job's definition, with the backoff its handler declares
	 * @param exception what failed the attempt: what the handler threw, or a
	 * {@link java.util.concurrent.TimeoutException} when it ran past its timeout
	 * @return the delay before the next attempt (a negative one counts as zero), or
	 * {@code null} when the job dies
	 */
	@Nullable Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception);

	/**
	 * Act on a job that died, after it was recorded in its queue's dead set; called once
	 * per job, on the thread that settled it (a worker, or the container's scheduler for
	 * a timeout). An exception thrown here is logged and changes nothing.
	 * <p>
	 * Does nothing by default.
	 * @param job the dead job
	 * @param exception what failed its last attempt
	 * @see JobRecoverer
	 */
	default void recover(JobContext job, Throwable exception) {
	}

}
