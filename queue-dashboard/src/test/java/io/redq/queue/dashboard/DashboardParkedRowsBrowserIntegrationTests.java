package io.redq.queue.dashboard;

import java.io.IOException;

import io.redq.queue.core.JobStatus;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox's parked rows in a real browser (headless Chromium), on a real PostgreSQL
 * and a real Redis: the page lists a parked row and re-sends it.
 *
 * @author Redq team
 */
@SpringBootTest(classes = { DashboardTestApplication.class, OutboxTestDatabase.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.outbox.jdbc.initialize-schema=always", "redq.outbox.relay.max-attempts=1" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
@EnabledIf(value = "io.redq.queue.test.PostgresServer#isAvailable",
		disabledReason = "PostgreSQL is not installed (apt-get install -y postgresql)")
class DashboardParkedRowsBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	@Autowired
	private OutboxTestDatabase.ParkedRows parkedRows;

	@Autowired
	private RedisJobQueueOperations operations;

	@BeforeEach
	void emptyOutbox() {
		this.parkedRows.clear();
	}

	@Test // issue 35, item 3
	void showsAParkedRowAndReSendsIt() throws IOException {
		long row = this.parkedRows.park("p1");
		open("parked");
		String parked = "#parked tr[data-id='" + row + "']";
		await().atMost(DEADLINE).until(() -> !text(parked).isEmpty());
		assertThat(script("return document.getElementById('nav-parked').hidden;")).isEqualTo(false);
		assertThat(text(parked + " td.jobs")).isEqualTo("work (1)");
		assertThat(text(parked + " td.reason")).contains("WRONGTYPE");
		screenshot("parked-rows");
		click(parked + " button.resend");
		await().atMost(DEADLINE).until(() -> find(parked).isEmpty());
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(this.operations.status(OutboxTestDatabase.QUEUE, "p1").state())
				.isEqualTo(JobStatus.State.READY));
	}

}
