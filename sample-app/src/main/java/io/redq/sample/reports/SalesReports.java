package io.redq.sample.reports;

import java.time.Instant;
import java.util.List;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The sales report, written to {@code sales_report}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class SalesReports {

	/** The report's job. */
	public static final String SALES_REPORT = "sales-report";

	private static final Log logger = LogFactory.getLog(SalesReports.class);

	private final JdbcClient jdbc;

	public SalesReports(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Report the orders placed since the report before, on {@code sample.reports.cron}
	 * (06:00 UTC every day unless set; the sample's application.yml makes it every
	 * minute).
	 * @param tick the time of the tick, on the Redis clock
	 */
	@QueuedJob(name = SALES_REPORT, queue = "reports")
	@Recurring(cron = "${sample.reports.cron:0 0 6 * * *}")
	public void salesReport(Instant tick) {
		Instant since = this.jdbc.sql("SELECT MAX(tick) FROM sales_report WHERE tick < :tick")
			.param("tick", tick)
			.query(Instant.class)
			.optional()
			.orElse(Instant.EPOCH);
		SalesReport report = this.jdbc.sql("""
				SELECT COUNT(*) AS orders, COUNT(CASE WHEN status = 'PAID' THEN 1 END) AS paid,
				COALESCE(SUM(CASE WHEN status = 'PAID' THEN total END), 0) AS revenue
				FROM customer_order WHERE placed_at >= :since AND placed_at < :tick""")
			.param("since", since)
			.param("tick", tick)
			.query((row, number) -> new SalesReport(tick, row.getLong("orders"), row.getLong("paid"),
					row.getBigDecimal("revenue")))
			.single();
		// keyed by its tick: a tick that runs again writes the same row
		this.jdbc.sql("""
				MERGE INTO sales_report (tick, orders, paid, revenue) KEY (tick)
				VALUES (:tick, :orders, :paid, :revenue)""")
			.param("tick", tick)
			.param("orders", report.orders())
			.param("paid", report.paid())
			.param("revenue", report.revenue())
			.update();
		logger.info("Sales since " + since + ": " + report.orders() + " orders, " + report.paid() + " paid, "
				+ report.revenue() + " revenue");
	}

	/**
	 * Return the latest reports.
	 * @return up to 10 reports, newest first
	 */
	public List<SalesReport> latest() {
		return this.jdbc.sql("SELECT tick, orders, paid, revenue FROM sales_report ORDER BY tick DESC LIMIT 10")
			.query(SalesReport.class)
			.list();
	}

}
