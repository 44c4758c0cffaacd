package io.redq.sample;

/**
 * Thrown when a request cannot be done in the current state of what it names: an order
 * that is no longer unpaid, a bid on an auction that has ended, a product out of stock.
 * Answered with {@code 409 Conflict} and the message.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ConflictException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an instance.
	 * @param message what conflicts, and what the caller can do
	 */
	public ConflictException(String message) {
		super(message);
	}

}
