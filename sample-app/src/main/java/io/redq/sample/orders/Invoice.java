package io.redq.sample.orders;

import java.math.BigDecimal;

/**
 * The payload of {@code send-invoice}; stored in Redis as JSON.
 *
 * @param orderId the order
 * @param email where to send it
 * @param total the amount due
 * @author Redq team
 * @since 0.1.0
 */
public record Invoice(long orderId, String email, BigDecimal total) {

}
