package io.redq.queue.dashboard;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batches and a job's result in a real browser (headless Chromium) on a real Redis,
 * with writes allowed and no listener running, so that the batches stay as the test
 * leaves them.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false", "redq.completed.max-size=10" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardBatchesBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private RedisJobQueueOperations operations;

	@Test // GH-37
	void listsABatchWithItsCountsShowsItsDeadMembersAndCancelsIt() throws IOException {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(List.of(member("m1"), member("m2"), member("m3"))).carryOn().build());
		String batchId = batch.batchId();
		String dead = batch.members().get(0).id();
		ReservedJob first = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofMinutes(1))
			.jobs()
			.get(0);
		assertThat(first.id()).isEqualTo(dead);
		this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, first.lease(), "boom", null);
		this.operations.getBatchOperations().handOver(QUEUE);
		open("batches");
		String row = "#batches tr[data-id='" + batchId + "']";
		await().atMost(DEADLINE).until(() -> !text(row).isEmpty());
		assertThat(text(row + " td.state")).isEqualTo("RUNNING");
		assertThat(text(row + " td[data-count='total']")).isEqualTo("3");
		assertThat(text(row + " td[data-count='pending']")).isEqualTo("2");
		assertThat(text(row + " td[data-count='dead']")).isEqualTo("1");
		click(row + " a");
		await().atMost(DEADLINE).until(() -> text("#batch-id").equals(batchId));
		assertThat(text("#batch-fields dd[data-field='when a member dies']")).isEqualTo("CARRY_ON");
		assertThat(text("#batch-dead tr[data-id='" + dead + "']")).contains(QUEUE).contains(dead);
		screenshot("batch");
		click("#batch-cancel");
		// its pending members are cancelled in their queue, then handed over
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(batch.members().subList(1, 3))
				.allSatisfy((member) -> assertThat(this.operations.status(QUEUE, member.id()).state())
					.isEqualTo(JobStatus.State.NONE)));
		this.operations.getBatchOperations().handOver(QUEUE);
		await().atMost(DEADLINE).until(() -> text("#batch-fields dd[data-field='state']").equals("FAILED"));
		assertThat(this.operations.getBatchOperations().find(batchId).get().state())
			.isEqualTo(BatchStatus.State.FAILED);
		assertThat(text("#batch-fields dd[data-field='cancelled']")).isEqualTo("2");
		assertThat(find("#batch-cancel")).isEmpty();
	}

	@Test // GH-38
	void showsACompletedJobsResultWithItsSize() {
		this.dispatcher.dispatch(JobRequest.of("work", "p").id("r1").build());
		ReservedJob job = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofMinutes(1))
			.jobs()
			.get(0);
		String result = "{\"items\":\"" + "x".repeat(5000) + "\"}";
		this.operations.getListenerOperations()
			.getLeaseOperations()
			.ack(QUEUE, List.of(job.lease()), java.util.Map.of("r1", result));
		open("job/ops/r1");
		await().atMost(DEADLINE).until(() -> !text("#job-result").isEmpty());
		assertThat(text("#job-result-size")).contains(result.length() + " bytes").contains("first 4096");
		assertThat(text("#job-result")).startsWith("{\"items\":\"xxx").hasSize(4096);
	}

	private static JobRequest member(String payload) {
		return JobRequest.of("work", payload).build();
	}

}
