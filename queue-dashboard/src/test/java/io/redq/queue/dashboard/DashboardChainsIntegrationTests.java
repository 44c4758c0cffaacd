package io.redq.queue.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's chains over HTTP with writes allowed, on a real Redis: the list of
 * chains in pages, one chain with its steps and reason, and its cancellation from the
 * page only.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardChainsIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	private static final Keyspace KEYSPACE = new Keyspace("redq");

	@Autowired
	private JobDispatcher dispatcher;

	@Test // GH-37
	void listsTheChainsNewestFirstInPagesAndDropsExpiredOnesWhenRead() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			ids.add(chain("a" + i, "b" + i).chainId());
		}
		List<Map<String, Object>> all = page("chains", 0, 20);
		assertThat(all).extracting((chain) -> chain.get("id")).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(all).extracting((chain) -> ((Number) chain.get("createdAt")).longValue())
			.isSortedAccordingTo((a, b) -> Long.compare(b, a));
		assertThat(all).allSatisfy((chain) -> assertThat(chain).containsEntry("state", "RUNNING")
			.containsEntry("steps", 2)
			.containsEntry("succeeded", 0));
		// pages follow the same order
		List<Object> paged = new ArrayList<>();
		paged.addAll(page("chains", 0, 2).stream().map((chain) -> chain.get("id")).toList());
		paged.addAll(page("chains", 2, 2).stream().map((chain) -> chain.get("id")).toList());
		assertThat(paged).isEqualTo(all.stream().map((chain) -> chain.get("id")).toList());
		// a chain whose state expired is dropped from the index once read
		String expired = (String) all.get(1).get("id");
		this.operations.getStore().getTemplate().delete(KEYSPACE.chain(expired));
		assertThat(page("chains", 0, 20)).extracting((chain) -> chain.get("id")).doesNotContain(expired).hasSize(2);
		assertThat(this.operations.getStore().getTemplate().opsForZSet().zCard(KEYSPACE.chainIndex())).isEqualTo(2);
		get("/api/chains?count=" + (JobQueueInspector.MAX_PAGE_SIZE + 1)).expectStatus().isBadRequest();
		get("/api/chains?offset=-1").expectStatus().isBadRequest();
	}

	@Test // GH-37
	void creatingAChainDropsExpiredOnesFromTheIndexUnread() {
		String expired = chain("e1", "e2").chainId();
		this.operations.getStore().getTemplate().delete(KEYSPACE.chain(expired));
		// the index's two entries are the two picked at random
		String kept = chain("k1", "k2").chainId();
		assertThat(this.operations.getStore().getTemplate().opsForZSet().range(KEYSPACE.chainIndex(), 0, -1))
			.containsExactly(kept);
	}

	@Test // GH-37
	void showsAChainWithItsStepsAndWhyItEnded() {
		ChainResult chain = chain("ok", "fail", "never");
		String id = chain.chainId();
		finish(false);
		finish(true);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/chains/" + id).expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"chain": {"id": "%1$s", "state": "FAILED", "reason": "step 2 (job %1$s:2 of queue '%2$s') died",
						"steps": 3, "succeeded": 1},
					"steps": [{"queue": "%2$s", "id": "%1$s:1", "state": "SUCCEEDED"},
						{"queue": "%2$s", "id": "%1$s:2", "state": "DEAD"},
						{"queue": "%2$s", "id": "%1$s:3", "state": "CANCELLED"}]}""".formatted(id, QUEUE))
			.jsonPath("$.steps[*].id")
			.isEqualTo(chain.stepIds())
			.jsonPath("$.chain.createdAt")
			.isNumber();
		get("/api/chains/unknown").expectStatus().isNotFound();
		get("/api/chains/" + "x".repeat(QueueNames.MAX_ID_LENGTH + 1)).expectStatus().isBadRequest();
	}

	@Test // GH-37
	void cancelsARunningChainOnlyFromThePageAndLogsIt() {
		ChainResult chain = chain("c1", "c2");
		String id = chain.chainId();
		String first = chain.stepIds().get(0);
		assertRefusedFromAnotherSite("/api/chains/" + id + "/cancel");
		assertThat(this.operations.status(QUEUE, first).state()).isEqualTo(JobStatus.State.READY);
		assertThat(this.dispatcher.findChain(id))
			.hasValueSatisfying((status) -> assertThat(status.state()).isEqualTo(ChainStatus.State.RUNNING));
		post("/api/chains/" + id + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, first).state()).isEqualTo(JobStatus.State.NONE);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/chains/" + id).expectStatus().isOk().expectBody().json("""
				{"chain": {"state": "CANCELLED"},
				"steps": [{"state": "CANCELLED"}, {"state": "CANCELLED"}]}""");
		assertThat(this.operations.stats(QUEUE).ready()).as("the later step never starts").isZero();
		get("/api/actions?count=1").expectStatus().isOk().expectBody().json("""
				[{"action": "cancel", "queue": "chain", "target": "%s", "jobs": 1}]""".formatted(id));
		// an ended chain is not cancelled again
		post("/api/chains/" + id + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 0}""");
		post("/api/chains/unknown/cancel").expectStatus().isNotFound();
	}

	private ChainResult chain(String... payloads) {
		List<JobRequest> steps = new ArrayList<>();
		for (String payload : payloads) {
			steps.add(JobRequest.of("work", payload).build());
		}
		return this.dispatcher.dispatchChain(ChainRequest.of(steps).build());
	}

	/** Reserve the next job of the queue and acknowledge it, or fail it for good. */
	private void finish(boolean fail) {
		ReservedJob job = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofMinutes(1))
			.jobs()
			.get(0);
		if (fail) {
			this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, job.lease(), "failed", null);
		}
		else {
			this.operations.getListenerOperations().getLeaseOperations().ack(QUEUE, List.of(job.lease()));
		}
	}

}
