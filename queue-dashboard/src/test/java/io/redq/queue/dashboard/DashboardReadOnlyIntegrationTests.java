package io.redq.queue.dashboard;

import java.time.Duration;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.RestTestClient;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard with its default access, read-only: it reads, says it is read-only, and
 * refuses every forged change.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.listener.auto-startup=false" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardReadOnlyIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Test
	void readsAndSaysItIsReadOnly() {
		this.client.get().uri("/api/session").exchange().expectStatus().isOk().expectBody().json("""
				{"readOnly": true, "csrf": null}""");
		this.client.get().uri("/api/queues").exchange().expectStatus().isOk();
	}

	@Test
	void refusesEveryForgedChange() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("t1").delay(Duration.ofHours(1)).build());
		for (String path : new String[] { "/api/queues/ops/pause", "/api/queues/ops/purge?confirm=ops",
				"/api/queues/ops/job/trigger?id=t1", "/api/queues/ops/job/cancel?id=t1",
				"/api/queues/ops/dead/delete?confirm=ops" }) {
			this.client.post()
				.uri(path)
				.exchange()
				.expectStatus()
				.isForbidden()
				.expectBody()
				.jsonPath("$.error")
				.value((String error) -> assertThat(error).contains("redq.dashboard.read-only=false"));
		}
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.DELAYED);
	}

}
