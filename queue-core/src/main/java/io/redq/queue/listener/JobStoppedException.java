package io.redq.queue.listener;

/**
 * Thrown by {@link JobContext#iterate} and {@link JobContext#step} when the container
 * stops: the job's cursor is written and the job goes back to its queue without using an
 * attempt, to resume there on the next worker. Let it through the handler.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobStoppedException extends RuntimeException {

	/**
	 * Create an instance.
	 * @param message where the job stopped
	 */
	public JobStoppedException(String message) {
		super(message);
	}

}
