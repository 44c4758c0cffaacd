package io.redq.sample.reports;

import java.math.BigDecimal;
import java.time.Duration;

import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import io.redq.sample.TestProducts;
import io.redq.sample.orders.OrderService;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recurring sales report.
 *
 * @author Redq team
 */
@SampleShopTest
class SalesReportsIntegrationTests {

	@Autowired
	private RecurringJobs recurringJobs;

	@Autowired
	private SalesReports reports;

	@Autowired
	private OrderService orders;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void reportsEveryMinute() {
		RecurringJobInfo report = this.recurringJobs.get(SalesReports.SALES_REPORT);
		assertThat(report.schedule().getCron()).isEqualTo("0 * * * * *");
		assertThat(report.paused()).isFalse();
	}

	@Test
	void aRunReportsTheOrdersSinceTheLastReport(@Autowired ApplicationContext context) {
		long product = TestProducts.add(this.jdbc, 10);
		this.orders.pay(this.orders.place("ada@reports.example", product, 2).id());
		String run = this.recurringJobs.trigger(SalesReports.SALES_REPORT);
		JobTester.of(context).awaitCompleted("reports", run, Duration.ofSeconds(30));
		// the report of this run, or of a tick before it, counts the order; one of the
		// minute's ticks may have come since
		assertThat(this.reports.latest())
			.anySatisfy((report) -> assertThat(report.revenue()).isGreaterThanOrEqualTo(new BigDecimal("20.00")));
	}

}
