package io.redq.queue.core;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * Thrown when a queue in Redis is kept in a newer data model than this instance's scripts
 * read and write: the script refused to run rather than misread the data. Retrying does
 * not help; upgrading this instance to a Redq release of that model does. An instance
 * refuses to start serving such a queue; a dispatch to it throws this exception.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DataModelMismatchException extends NonTransientDataAccessException {

	/**
	 * Create an instance.
	 * @param message what the script found and what to do, as the script said it
	 * @param cause the error of the script
	 */
	public DataModelMismatchException(String message, Throwable cause) {
		super(message, cause);
	}

}
