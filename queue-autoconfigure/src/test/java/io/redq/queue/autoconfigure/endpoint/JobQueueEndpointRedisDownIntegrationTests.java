package io.redq.queue.autoconfigure.endpoint;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * The {@code redq} endpoint while Redis cannot be reached: 503 with the reason, not a
 * bare 500.
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "management.endpoint.redq.access=unrestricted",
				"redq.listener.auto-startup=false", "redq.recurring.enabled=false",
				"spring.web.error.include-message=always" })
class JobQueueEndpointRedisDownIntegrationTests {

	@LocalServerPort
	private int port;

	private RestTestClient client;

	@DynamicPropertySource
	static void redisWhereNoneListens(DynamicPropertyRegistry registry) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		registry.add("spring.data.redis.host", () -> "127.0.0.1");
		registry.add("spring.data.redis.port", () -> port);
	}

	@BeforeEach
	void setUpClient() {
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator/redq").build();
	}

	@Test
	void readsAndWritesAnswerServiceUnavailableWithTheReason() {
		this.client.get()
			.uri("")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
			.expectBody()
			.jsonPath("$.message")
			.value((String message) -> org.assertj.core.api.Assertions.assertThat(message)
				.startsWith("Redis is unavailable"));
		this.client.get().uri("/ops/dead").exchange().expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		this.client.post()
			.uri("/ops/dead?ids=x")
			.contentType(MediaType.APPLICATION_JSON)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
	}

}
