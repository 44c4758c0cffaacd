package io.redq.sample.partners;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The partner's rate limit: 5 calls in any second.
 *
 * @author Redq team
 */
@SampleShopTest
class PartnersIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void callsKeepToTheRateLimit(@Autowired ApplicationContext context) {
		Instant before = Instant.now();
		List<String> jobs = new ArrayList<>();
		for (long order = 1; order <= 10; order++) {
			jobs.add(this.dispatcher.dispatch(new Shipment(order)).id());
		}
		JobTester.of(context).awaitDrained("partners", Duration.ofSeconds(30));
		List<Instant> calls = this.jdbc
			.sql("SELECT called_at FROM partner_call WHERE job_id IN (:jobs) ORDER BY called_at")
			.param("jobs", jobs)
			.query(Instant.class)
			.list();
		assertThat(calls).hasSize(10);
		// 5 in any second: the sixth starts a second after the first at the earliest, and
		// the first no earlier than the dispatch (one host: Redis and the test share a
		// clock)
		assertThat(calls.get(5)).isAfterOrEqualTo(before.plusSeconds(1));
	}

}
