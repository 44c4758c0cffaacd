package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static io.redq.queue.autoconfigure.endpoint.EndpointTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batches and the stored results in the {@code redq} endpoint over HTTP, read-only as
 * by default, on a real Redis.
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false",
				"spring.web.error.include-message=always" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class JobQueueEndpointBatchesIntegrationTests extends EndpointHttpSupport {

	@Test // GH-37
	void pagesThroughTheBatchesNewestFirstAndShowsOneWithItsDeadMembers() {
		BatchResult firstBatch = this.dispatcher
			.dispatchBatch(BatchRequest.of(List.of(member("a1"), member("a2"))).carryOn().build());
		String first = firstBatch.batchId();
		String second = this.dispatcher.dispatchBatch(BatchRequest.of(List.of(member("b1"), member("b2"))).build())
			.batchId();
		get("/batches").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.total")
			.isEqualTo(2)
			.jsonPath("$.batches[*].id")
			.value((List<String> ids) -> assertThat(ids).containsExactlyInAnyOrder(first, second))
			.jsonPath("$.batches[0].createdAt")
			.isNotEmpty();
		get("/batches?offset=1&count=1").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.offset")
			.isEqualTo(1)
			.jsonPath("$.batches.length()")
			.isEqualTo(1);
		// the oldest ready job: the first member of the first batch
		ReservedJob dying = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofSeconds(30))
			.jobs()
			.get(0);
		String dead = firstBatch.members().get(0).id();
		assertThat(dying.id()).isEqualTo(dead);
		this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, dying.lease(), "error", null);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/batches/" + first).expectStatus().isOk().expectBody().json("""
				{"batch": {"id": "%s", "state": "RUNNING", "deathPolicy": "CARRY_ON", "total": 2, "pending": 1,
					"succeeded": 0, "dead": 1, "cancelled": 0},
				"offset": 0, "deadMembers": [{"queue": "ops", "id": "%s"}]}""".formatted(first, dead));
		get("/batches/" + first + "?offset=1").expectStatus().isOk().expectBody().json("""
				{"offset": 1, "deadMembers": []}""");
		get("/batches?count=101").expectStatus().isBadRequest();
		get("/batches/" + first + "?offset=-1").expectStatus().isBadRequest();
		get("/batches/unknown").expectStatus().isNotFound();
		get("/batches/" + "x".repeat(QueueNames.MAX_ID_LENGTH + 1)).expectStatus().isBadRequest();
		// an expired batch is dropped from the list when read
		this.operations.getStore().getTemplate().delete(BatchKeys.of("redq", second).all());
		get("/batches").expectStatus().isOk().expectBody().json("""
				{"batches": [{"id": "%s"}]}""".formatted(first));
		get("/batches").expectStatus().isOk().expectBody().jsonPath("$.total").isEqualTo(1);
	}

	@Test // GH-38
	void showsACompletedJobsStoredResultWithItsSize() {
		this.dispatcher.dispatch(JobRequest.of("work", "p").id("r1").build());
		ReservedJob job = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofSeconds(30))
			.jobs()
			.get(0);
		this.operations.getListenerOperations()
			.getLeaseOperations()
			.ack(QUEUE, List.of(job.lease()), Map.of("r1", "{\"sent\":3}"));
		get("/ops/completed/r1").expectStatus().isOk().expectBody().json("""
				{"id": "r1", "json": "{\\"sent\\":3}", "size": 10, "truncated": false}""");
		get("/ops/completed/unknown").expectStatus().isNotFound();
		get("/ops/dead/r1").expectStatus().isNotFound();
	}

	private static JobRequest member(String payload) {
		return JobRequest.of("work", payload).build();
	}

	private ResponseSpec get(String path) {
		return this.client.get().uri(path).exchange();
	}

}
