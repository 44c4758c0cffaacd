package io.redq.sample;

import java.time.Duration;

import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Smoke test: the {@link SampleRunner} dispatches its jobs at startup, the
 * {@link SampleJobs} handle them, and the actuator shows the queues.
 *
 * @author Redq team
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ContextConfiguration(initializers = RedisServerInitializer.class)
class SampleApplicationIntegrationTests {

	@Autowired
	private SampleJobs jobs;

	@Autowired
	private JobQueueOperations operations;

	@LocalServerPort
	private int port;

	@Test
	void dispatchedJobsAreHandled() {
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(this.jobs.getHandled()).containsExactlyInAnyOrder("send-invoice:INV-1",
					"send-invoice:" + SampleJobs.FLAKY_INVOICE, "send-reminder:ada@example.com", "close-auction:42",
					"send-invoice:INV-2", "send-invoice:INV-3", "send-invoice:INV-4");
			// the rejected invoice is dead, the cancelled reminder is gone, the report
			// waits for another application
			assertThat(this.operations.stats("mail")).isEqualTo(new QueueStats(0, 0, 0, 1));
			assertThat(this.operations.stats("auctions")).isEqualTo(new QueueStats(0, 0, 0, 0));
			assertThat(this.operations.stats("reports")).isEqualTo(new QueueStats(1, 0, 0, 0));
		});
		RestTestClient actuator = RestTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + this.port + "/actuator")
			.build();
		actuator.get().uri("/redq/mail/dead").exchange().expectStatus().isOk().expectBody().json("""
				{"total": 1, "jobs": [{"job": "send-invoice"}]}""");
		actuator.get()
			.uri("/redq/mail/completed")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.jobs.length()")
			.isEqualTo(6);
		actuator.get().uri("/health").exchange().expectStatus().isOk().expectBody().json("""
				{"status": "UP", "components": {"redq": {"status": "UP"}}}""");
		// read-only: writes are not mapped
		actuator.post().uri("/redq/mail?paused=true").exchange().expectStatus().isEqualTo(405);
		// the dashboard, turned on by one property, read-only
		RestTestClient dashboard = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
		dashboard.get().uri("/redq/").exchange().expectStatus().isOk();
		dashboard.get().uri("/redq/api/queues/mail").exchange().expectStatus().isOk().expectBody().json("""
				{"name": "mail", "dead": 1}""");
		dashboard.post().uri("/redq/api/queues/mail/pause").exchange().expectStatus().isForbidden();
	}

}
