package io.redq.sample;

import java.time.Duration;

import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ContextConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Smoke test: the {@link SampleRunner} dispatches its jobs at startup and the
 * {@link SampleJobs} handle them.
 *
 * @author Redq team
 */
@SpringBootTest
@ContextConfiguration(initializers = RedisServerInitializer.class)
class SampleApplicationIntegrationTests {

	@Autowired
	private SampleJobs jobs;

	@Autowired
	private JobQueueOperations operations;

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
	}

}
