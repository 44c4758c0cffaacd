package io.redq.sample;

import java.time.Duration;

import io.redq.queue.testkit.JobTester;
import io.redq.sample.mail.MailJobs;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees: Redq's meters in Prometheus' format, the health, the read-only
 * actuator endpoint and the dashboard.
 *
 * @author Redq team
 */
@SampleShopTest
class ObservabilityIntegrationTests {

	@Autowired
	private MailJobs mail;

	@LocalServerPort
	private int port;

	@Test
	void prometheusListsRedqMeters(@Autowired ApplicationContext context) {
		String reset = this.mail.requestPasswordReset("ada@observability.example");
		JobTester.of(context).awaitCompleted("mail", reset, Duration.ofSeconds(30));
		String metrics = http().get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(metrics).contains("redq_jobs_dispatched_total{job=\"send-password-reset\",queue=\"mail\"}")
			.contains("redq_queue_jobs{queue=\"mail\",state=\"ready\"}")
			.contains("redq_queue_oldest_age_seconds{queue=\"images\"}")
			.contains("redq_jobs_processed_seconds_count{");
	}

	@Test
	void healthAndTheActuatorEndpointAreReadOnly() {
		RestTestClient http = http();
		http.get().uri("/actuator/health").exchange().expectStatus().isOk().expectBody().json("""
				{"status": "UP", "components": {"redq": {"status": "UP"}}}""");
		http.get().uri("/actuator/redq/mail").exchange().expectStatus().isOk();
		http.post().uri("/actuator/redq/mail?paused=true").exchange().expectStatus().isEqualTo(405);
	}

	@Test
	void theDashboardIsOnAndReadOnly() {
		RestTestClient http = http();
		http.get().uri("/redq/").exchange().expectStatus().isOk();
		http.get().uri("/redq/api/queues/flash-sale").exchange().expectStatus().isOk().expectBody().json("""
				{"name": "flash-sale"}""");
		http.post().uri("/redq/api/queues/mail/pause").exchange().expectStatus().isForbidden();
	}

	private RestTestClient http() {
		return RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
	}

}
