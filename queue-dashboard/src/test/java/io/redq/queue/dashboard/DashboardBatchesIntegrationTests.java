package io.redq.queue.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.Lease;
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
 * The dashboard's batches and results over HTTP with writes allowed, on a real Redis: the
 * list of batches in pages, one batch with its counts and dead members, its cancellation
 * from the page only, and a completed job's stored result.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false", "redq.completed.max-size=10" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardBatchesIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Test // GH-37
	void listsTheBatchesNewestFirstInPagesAndDropsExpiredOnesWhenRead() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			ids.add(batch("a" + i, "b" + i).batchId());
		}
		List<Map<String, Object>> all = page("batches", 0, 20);
		assertThat(all).extracting((batch) -> batch.get("id")).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(all).extracting((batch) -> ((Number) batch.get("createdAt")).longValue())
			.isSortedAccordingTo((a, b) -> Long.compare(b, a));
		assertThat(all).allSatisfy((batch) -> assertThat(batch).containsEntry("state", "RUNNING")
			.containsEntry("total", 2)
			.containsEntry("pending", 2));
		// pages follow the same order
		List<Object> paged = new ArrayList<>();
		paged.addAll(page("batches", 0, 2).stream().map((batch) -> batch.get("id")).toList());
		paged.addAll(page("batches", 2, 2).stream().map((batch) -> batch.get("id")).toList());
		assertThat(paged).isEqualTo(all.stream().map((batch) -> batch.get("id")).toList());
		// a batch whose state expired is dropped from the index once read
		String expired = (String) all.get(1).get("id");
		this.operations.getStore().getTemplate().delete(new Keyspace("redq").batch(expired).all());
		assertThat(page("batches", 0, 20)).extracting((batch) -> batch.get("id")).doesNotContain(expired).hasSize(2);
		assertThat(this.operations.getStore().getTemplate().opsForZSet().zCard(new Keyspace("redq").batchIndex()))
			.isEqualTo(2);
		get("/api/batches?count=" + (JobQueueInspector.MAX_PAGE_SIZE + 1)).expectStatus().isBadRequest();
		get("/api/batches?offset=-1").expectStatus().isBadRequest();
	}

	@Test // GH-37
	void creatingABatchDropsExpiredOnesFromTheIndexUnread() {
		String expired = batch("e1").batchId();
		this.operations.getStore().getTemplate().delete(new Keyspace("redq").batch(expired).all());
		// the index's two entries are the two picked at random
		String kept = batch("k1").batchId();
		assertThat(
				this.operations.getStore().getTemplate().opsForZSet().range(new Keyspace("redq").batchIndex(), 0, -1))
			.containsExactly(kept);
	}

	@Test // GH-37
	void showsABatchWithItsStateCountsAndDeadMembersInPages() {
		String batchId = batch("ok", "fail1", "fail2", "fail3").batchId();
		for (int i = 0; i < 4; i++) {
			ReservedJob job = this.operations.getListenerOperations()
				.reserve(QUEUE, 1, Duration.ofMinutes(1))
				.jobs()
				.get(0);
			Lease lease = job.lease();
			if (job.envelope().contains("fail")) {
				this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, lease, "failed", null);
			}
			else {
				this.operations.getListenerOperations().getLeaseOperations().ack(QUEUE, List.of(lease));
			}
		}
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/batches/" + batchId).expectStatus().isOk().expectBody().json("""
				{"batch": {"state": "FAILED", "deathPolicy": "CARRY_ON", "total": 4, "pending": 0,
					"succeeded": 1, "dead": 3, "cancelled": 0},
				"deadOffset": 0}""").jsonPath("$.deadMembers.length()").isEqualTo(3);
		get("/api/batches/" + batchId + "?deadOffset=1&deadCount=1").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.deadMembers.length()")
			.isEqualTo(1)
			.jsonPath("$.deadMembers[0].queue")
			.isEqualTo(QUEUE);
		get("/api/batches/" + batchId + "?deadCount=101").expectStatus().isBadRequest();
		get("/api/batches/unknown").expectStatus().isNotFound();
		get("/api/batches/" + "x".repeat(QueueNames.MAX_ID_LENGTH + 1)).expectStatus().isBadRequest();
	}

	@Test // GH-37
	void cancelsARunningBatchOnlyFromThePageAndLogsIt() {
		BatchResult batch = batch("c1", "c2");
		String batchId = batch.batchId();
		String c1 = batch.members().get(0).id();
		String c2 = batch.members().get(1).id();
		assertRefusedFromAnotherSite("/api/batches/" + batchId + "/cancel");
		assertThat(this.operations.status(QUEUE, c1).state()).isEqualTo(JobStatus.State.READY);
		assertThat(this.dispatcher.findBatch(batchId))
			.hasValueSatisfying((status) -> assertThat(status.state()).isEqualTo(BatchStatus.State.RUNNING));
		post("/api/batches/" + batchId + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, c1).state()).isEqualTo(JobStatus.State.NONE);
		assertThat(this.operations.status(QUEUE, c2).state()).isEqualTo(JobStatus.State.NONE);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/batches/" + batchId).expectStatus().isOk().expectBody().json("""
				{"batch": {"state": "CANCELLED", "pending": 0, "cancelled": 2}}""");
		get("/api/actions?count=1").expectStatus().isOk().expectBody().json("""
				[{"action": "cancel", "queue": "batch", "target": "%s", "jobs": 1}]""".formatted(batchId));
		// an ended batch is not cancelled again
		post("/api/batches/" + batchId + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 0}""");
		post("/api/batches/unknown/cancel").expectStatus().isNotFound();
	}

	@Test // GH-38
	void showsACompletedJobsStoredResultCutToAFewKilobytesWithItsSize() {
		complete("small", "{\"sent\":3}");
		String large = "\"" + "x".repeat(10_000) + "\"";
		complete("large", large);
		complete("none", null);
		get("/api/queues/ops/job?id=small").expectStatus().isOk().expectBody().json("""
				{"state": "COMPLETED", "result": {"json": "{\\"sent\\":3}", "size": 10, "truncated": false}}""");
		get("/api/queues/ops/job?id=large").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.result.size")
			.isEqualTo(large.length())
			.jsonPath("$.result.truncated")
			.isEqualTo(true)
			.jsonPath("$.result.json")
			.value((String json) -> assertThat(json).hasSize(JobQueueInspector.MAX_RESULT_READ)
				.isEqualTo(large.substring(0, JobQueueInspector.MAX_RESULT_READ)));
		get("/api/queues/ops/job?id=none").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.state")
			.isEqualTo("COMPLETED")
			.jsonPath("$.result")
			.doesNotExist();
	}

	private BatchResult batch(String... payloads) {
		List<JobRequest> members = new ArrayList<>();
		for (String payload : payloads) {
			members.add(JobRequest.of("work", payload).build());
		}
		return this.dispatcher.dispatchBatch(BatchRequest.of(members).carryOn().build());
	}

	private void complete(String id, String result) {
		this.dispatcher.dispatch(JobRequest.of("work", "p").id(id).build());
		ReservedJob job = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofMinutes(1))
			.jobs()
			.get(0);
		this.operations.getListenerOperations()
			.getLeaseOperations()
			.ack(QUEUE, List.of(job.lease()), (result != null) ? Map.of(job.id(), result) : Map.of());
	}

}
