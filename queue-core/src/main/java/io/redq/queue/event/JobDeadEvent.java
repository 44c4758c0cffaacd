package io.redq.queue.event;

import org.jspecify.annotations.Nullable;

/**
 * Published once when a job died: after it was recorded in its queue's dead set, on the
 * thread that settled it (a worker, or the container's scheduler for a timeout). Its
 * source is the listener container.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobDeadEvent extends JobQueueEvent {

	private final String jobId;

	private final @Nullable String jobName;

	private final int attempt;

	private final Throwable exception;

	/**
	 * Create an instance.
	 * @param source the container
	 * @param queue the queue
	 * @param jobId the job id
	 * @param jobName the job name, or {@code null} when the container could not run it
	 * (its data is not a job, or it has no handler here)
	 * @param attempt the attempt it died on
	 * @param exception what failed its last attempt
	 */
	public JobDeadEvent(Object source, String queue, String jobId, @Nullable String jobName, int attempt,
			Throwable exception) {
		super(source, queue);
		this.jobId = jobId;
		this.jobName = jobName;
		this.attempt = attempt;
		this.exception = exception;
	}

	/**
	 * Return the job id.
	 * @return the id
	 */
	public String getJobId() {
		return this.jobId;
	}

	/**
	 * Return the job name.
	 * @return the name, or {@code null} when the container could not run it
	 */
	public @Nullable String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the attempt the job died on, from 1.
	 * @return the attempt
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * Return what failed the job's last attempt: what its handler threw, a
	 * {@link java.util.concurrent.TimeoutException} after a timeout, or a
	 * {@code JobRejectedException} saying why the container could not run it.
	 * @return the exception
	 */
	public Throwable getException() {
		return this.exception;
	}

	@Override
	public String toString() {
		return "JobDeadEvent[queue=" + getQueue() + ", jobId=" + this.jobId + ", jobName=" + this.jobName + ", attempt="
				+ this.attempt + ", exception=" + this.exception + "]";
	}

}
