package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.Keyspace;
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
 * The chains in the {@code redq} endpoint over HTTP, read-only as by default, on a real
 * Redis.
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false",
				"spring.web.error.include-message=always" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class JobQueueEndpointChainsIntegrationTests extends EndpointHttpSupport {

	@Test // GH-37
	void pagesThroughTheChainsNewestFirstAndShowsOneWithItsSteps() {
		ChainResult firstChain = this.dispatcher.dispatchChain(ChainRequest.of(step("a1"), step("a2")).build());
		String first = firstChain.chainId();
		String second = this.dispatcher.dispatchChain(ChainRequest.of(step("b1"), step("b2")).build()).chainId();
		get("/chains").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.total")
			.isEqualTo(2)
			.jsonPath("$.chains[*].id")
			.value((List<String> ids) -> assertThat(ids).containsExactlyInAnyOrder(first, second))
			.jsonPath("$.chains[0].createdAt")
			.isNotEmpty();
		get("/chains?offset=1&count=1").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.offset")
			.isEqualTo(1)
			.jsonPath("$.chains.length()")
			.isEqualTo(1);
		// the oldest ready job: the first step of the first chain
		ReservedJob dying = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofSeconds(30))
			.jobs()
			.get(0);
		assertThat(dying.id()).isEqualTo(firstChain.stepIds().get(0));
		this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, dying.lease(), "error", null);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/chains/" + first).expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"chain": {"id": "%1$s", "state": "FAILED", "reason": "step 1 (job %1$s:1 of queue 'ops') died",
						"steps": 2, "succeeded": 0},
					"steps": [{"queue": "ops", "id": "%1$s:1", "state": "DEAD"},
						{"queue": "ops", "id": "%1$s:2", "state": "CANCELLED"}]}""".formatted(first))
			.jsonPath("$.steps[*].id")
			.isEqualTo(firstChain.stepIds());
		get("/chains?count=101").expectStatus().isBadRequest();
		get("/chains?offset=-1").expectStatus().isBadRequest();
		get("/chains/unknown").expectStatus().isNotFound();
		get("/chains/" + "x".repeat(QueueNames.MAX_ID_LENGTH + 1)).expectStatus().isBadRequest();
		// an expired chain is dropped from the list when read
		this.operations.getStore().getTemplate().delete(new Keyspace("redq").chain(second));
		get("/chains").expectStatus().isOk().expectBody().json("""
				{"chains": [{"id": "%s"}]}""".formatted(first));
		get("/chains").expectStatus().isOk().expectBody().jsonPath("$.total").isEqualTo(1);
	}

	private static JobRequest step(String payload) {
		return JobRequest.of("work", payload).build();
	}

	private ResponseSpec get(String path) {
		return this.client.get().uri(path).exchange();
	}

}
