package io.redq.queue.dashboard;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
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
 * The chains in a real browser (headless Chromium) on a real Redis, with writes allowed
 * and no listener running, so that the chains stay as the test leaves them.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardChainsBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private RedisJobQueueOperations operations;

	@Test // GH-37
	void listsAChainShowsItsStepsAndCancelsIt() throws IOException {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.of(step("s1"), step("s2"), step("s3")).build());
		String chainId = chain.chainId();
		List<String> steps = chain.stepIds();
		ReservedJob first = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofMinutes(1))
			.jobs()
			.get(0);
		this.operations.getListenerOperations().getLeaseOperations().ack(QUEUE, List.of(first.lease()));
		this.operations.getBatchOperations().handOver(QUEUE);
		open("chains");
		String row = "#chains tr[data-id='" + chainId + "']";
		await().atMost(DEADLINE).until(() -> !text(row).isEmpty());
		assertThat(text(row + " td.state")).isEqualTo("RUNNING");
		assertThat(text(row + " td[data-count='steps']")).isEqualTo("3");
		assertThat(text(row + " td[data-count='succeeded']")).isEqualTo("1");
		click(row + " a");
		await().atMost(DEADLINE).until(() -> text("#chain-id").equals(chainId));
		assertThat(List.of(0, 1, 2)).map((i) -> text("#chain-steps tr[data-id='" + steps.get(i) + "'] td.state"))
			.containsExactly("SUCCEEDED", "RUNNING", "PENDING");
		assertThat(text("#chain-steps tr[data-id='" + steps.get(1) + "']")).contains(QUEUE);
		screenshot("chain");
		click("#chain-cancel");
		// its current step is cancelled in its queue, then handed over
		await().atMost(DEADLINE)
			.until(() -> this.operations.status(QUEUE, steps.get(1)).state() == JobStatus.State.NONE);
		this.operations.getBatchOperations().handOver(QUEUE);
		await().atMost(DEADLINE).until(() -> text("#chain-fields dd[data-field='state']").equals("CANCELLED"));
		assertThat(this.operations.getChainOperations().find(chainId).get().state())
			.isEqualTo(ChainStatus.State.CANCELLED);
		assertThat(text("#chain-fields dd[data-field='reason']")).isNotEmpty();
		assertThat(text("#chain-steps tr[data-id='" + steps.get(2) + "'] td.state")).isEqualTo("CANCELLED");
		assertThat(find("#chain-cancel")).isEmpty();
	}

	@Test // GH-37, nesting
	void aBatchStepLinksToItsBatch() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(BatchRequest.of(List.of(step("b1"), step("b2"))).build())
			.step(step("s2"))
			.build());
		String batchId = chain.stepIds().get(0);
		open("chain/" + chain.chainId());
		String row = "#chain-steps tr[data-id='" + batchId + "']";
		await().atMost(DEADLINE).until(() -> !text(row).isEmpty());
		assertThat(text(row + " td.state")).isEqualTo("RUNNING");
		assertThat(text(row)).contains("batch");
		click(row + " td.id a");
		await().atMost(DEADLINE).until(() -> text("#batch-id").equals(batchId));
	}

	private static JobRequest step(String payload) {
		return JobRequest.of("work", payload).build();
	}

}
