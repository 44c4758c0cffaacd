package io.redq.docs.hooks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.redq.docs.hooks.HookedApplication.Reports;
import io.redq.queue.core.DispatchVetoedException;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.testkit.RedisServerTestConfiguration;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Runs the "Interceptors and events" examples on a real Redis.
 *
 * @author Redq team
 */
@SpringBootTest(classes = HookedApplication.class)
@Import(RedisServerTestConfiguration.class)
class HooksIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private Reports reports;

	@Autowired
	private JobAlerts alerts;

	@Test
	void theTenantOfTheDispatchingThreadIsInTheMdcOfTheJob() throws Exception {
		assertThat(this.alerts.consuming.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		try (MDC.MDCCloseable tenant = MDC.putCloseable("tenant", "acme")) {
			this.dispatcher.dispatch("build-report", "sales");
		}
		await().atMost(DEADLINE).until(() -> !this.reports.built.isEmpty());
		assertThat(this.reports.built).containsExactly("sales for acme");
	}

	@Test
	void aDispatchWithoutATenantIsVetoed() {
		assertThatExceptionOfType(DispatchVetoedException.class)
			.isThrownBy(() -> this.dispatcher.dispatch("build-report", "sales"))
			.withMessageContaining("vetoed it: no tenant on this thread");
	}

	@Test
	void aDeadJobIsReported() {
		String id;
		try (MDC.MDCCloseable tenant = MDC.putCloseable("tenant", "acme")) {
			id = this.dispatcher.dispatch("broken-report", "q3").id();
		}
		await().atMost(DEADLINE).until(() -> !this.alerts.dead.isEmpty());
		assertThat(this.alerts.dead).containsExactly("broken-report " + id + ": cannot build q3");
	}

}
