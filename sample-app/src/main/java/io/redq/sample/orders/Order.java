package io.redq.sample.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order.
 *
 * @param id its id
 * @param email the customer's email
 * @param productId what was ordered
 * @param quantity how many
 * @param total what it costs
 * @param status where it is
 * @param placedAt when it was placed
 * @author Redq team
 * @since 0.1.0
 */
public record Order(long id, String email, long productId, int quantity, BigDecimal total, Status status,
		Instant placedAt) {

	/**
	 * Where an order is.
	 */
	public enum Status {

		/** Placed, waiting for its payment. */
		UNPAID,

		/** Paid. */
		PAID,

		/** Not paid in time. */
		CANCELLED

	}

}
