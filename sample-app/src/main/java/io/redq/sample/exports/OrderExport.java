package io.redq.sample.exports;

import java.math.BigDecimal;

/**
 * What an export wrote: the job's result.
 *
 * @param email whose orders were exported
 * @param orders how many orders it has a line of
 * @param total the sum of their totals
 * @author Redq team
 * @since 0.1.0
 */
public record OrderExport(String email, long orders, BigDecimal total) {
}
