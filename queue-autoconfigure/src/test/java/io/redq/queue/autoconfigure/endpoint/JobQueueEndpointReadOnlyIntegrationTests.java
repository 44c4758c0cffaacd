package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.ContextConfiguration;

import static io.redq.queue.autoconfigure.endpoint.EndpointTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code redq} endpoint over HTTP with its default access, read-only: it reads, and
 * refuses every write operation.
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class JobQueueEndpointReadOnlyIntegrationTests extends EndpointHttpSupport {

	@Test
	void readOperationsAnswer() {
		kill("dead");
		this.client.get()
			.uri("")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.queues.ops.dead")
			.isEqualTo(1);
		this.client.get().uri("/ops").exchange().expectStatus().isOk();
		this.client.get()
			.uri("/ops/dead")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.jobs[0].id")
			.isEqualTo("dead");
		this.client.get().uri("/ops/dead/dead").exchange().expectStatus().isOk();
	}

	@Test
	void everyWriteOperationIsRefused() {
		this.dispatcher.dispatch(JobRequest.of("work", "x").id("timer").delay(Duration.ofHours(1)).build());
		for (String path : List.of("/ops", "/ops/dead", "/ops/jobs", "/ops/dead/timer", "/ops/jobs/timer")) {
			for (HttpMethod method : List.of(HttpMethod.POST, HttpMethod.DELETE)) {
				this.client.method(method)
					.uri(path + "?confirm=ops&ids=timer")
					.contentType(MediaType.APPLICATION_JSON)
					.body("{\"paused\": true}")
					.exchange()
					.expectStatus()
					.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
			}
		}
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
	}

}
