package io.redq.queue.core;

/**
 * Thrown by a {@link JobDispatcher} when a {@link DispatchInterceptor} refused a job:
 * nothing of the call that dispatched it was sent.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DispatchVetoedException extends IllegalStateException {

	/**
	 * Create an instance.
	 * @param message the message
	 * @param cause what the interceptor threw
	 */
	public DispatchVetoedException(String message, Throwable cause) {
		super(message, cause);
	}

}
