package io.redq.queue.core;

/**
 * Completes the wait for a job's result when the job died: it failed its last attempt, or
 * failed in a way that is not retried. Carries the job's last error as Redis kept it.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.redis.JobResults
 */
public class JobDeadException extends RuntimeException {

	private final String queue;

	private final String id;

	private final String error;

	/**
	 * Create an instance.
	 * @param queue the job's queue
	 * @param id the job id
	 * @param error the job's last error
	 */
	public JobDeadException(String queue, String id, String error) {
		super("Job " + id + " of queue '" + queue + "' is dead, so it has no result; its last error: " + error);
		this.queue = queue;
		this.id = id;
		this.error = error;
	}

	/**
	 * Return the job's queue.
	 * @return the queue
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * Return the job id.
	 * @return the id
	 */
	public String getId() {
		return this.id;
	}

	/**
	 * Return the job's last error: the exception's class and message, with their causes.
	 * @return the error
	 */
	public String getError() {
		return this.error;
	}

}
