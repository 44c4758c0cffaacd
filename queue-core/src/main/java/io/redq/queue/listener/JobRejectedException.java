package io.redq.queue.listener;

/**
 * Thrown by a handler (or for it) to say that a job must not be retried: it goes to dead
 * at once with this exception's message as its error.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobRejectedException extends RuntimeException {

	/**
	 * Create an instance.
	 * @param message why the job is rejected
	 */
	public JobRejectedException(String message) {
		super(message);
	}

	/**
	 * Create an instance.
	 * @param message why the job is rejected
	 * @param cause the cause
	 */
	public JobRejectedException(String message, Throwable cause) {
		super(message, cause);
	}

}
