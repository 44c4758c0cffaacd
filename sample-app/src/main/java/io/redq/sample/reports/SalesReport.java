package io.redq.sample.reports;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * The orders placed since the report before.
 *
 * @param tick the tick of the report
 * @param orders how many orders were placed
 * @param paid how many of them are paid
 * @param revenue what the paid ones bring in
 * @author Redq team
 * @since 0.1.0
 */
public record SalesReport(Instant tick, long orders, long paid, BigDecimal revenue) {

}
