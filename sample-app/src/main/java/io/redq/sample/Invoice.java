package io.redq.sample;

import java.math.BigDecimal;

/**
 * The payload of the {@code send-invoice} job; stored in Redis as JSON.
 *
 * @param number the invoice number, e.g. {@code INV-1}
 * @param email where to send it
 * @param amount the amount due
 * @author Redq team
 * @since 0.1.0
 */
public record Invoice(String number, String email, BigDecimal amount) {

}
