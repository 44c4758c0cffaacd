package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;

import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redq} endpoint's reads while its Redis, which answered before, is stopped or
 * stalled: each answers 503 within about the read timeout ({@code 2s} here), not after
 * Lettuce's command timeout (a minute here).
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false",
				"redq.recurring.enabled=false", "spring.web.error.include-message=always",
				"spring.data.redis.timeout=60s", "redq.inspection.timeout=2s" })
@DirtiesContext
class JobQueueEndpointRedisStoppedIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(15);

	private static RedisServer redis;

	@LocalServerPort
	private int port;

	private RestTestClient client;

	@DynamicPropertySource
	static void redisOfItsOwn(DynamicPropertyRegistry registry) {
		// the tests stop it
		redis = RedisServer.local().start();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void closeRedis() {
		redis.close();
	}

	@BeforeEach
	void setUpClient() {
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator/redq").build();
		await().atMost(BOUND).untilAsserted(() -> this.client.get().uri("").exchange().expectStatus().isOk());
	}

	@Test // GH-35
	void readsAnswerServiceUnavailableWithinTheReadTimeoutWhileRedisIsStalled() {
		redis.pause();
		try {
			assertUnavailableWithinBound();
		}
		finally {
			redis.resume();
		}
	}

	@Test // GH-35
	void readsAnswerServiceUnavailableWithinTheReadTimeoutWhileRedisIsStopped() {
		redis.kill();
		try {
			assertUnavailableWithinBound();
		}
		finally {
			redis.restart();
		}
	}

	private void assertUnavailableWithinBound() {
		// the counts and the list of queues may be read from memory for a second more
		for (String path : new String[] { "/ops/dead", "/ops/dead/x", "/ops", "" }) {
			long start = System.nanoTime();
			this.client.get()
				.uri(path)
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
				.expectBody()
				.jsonPath("$.message")
				.value((String message) -> assertThat(message).startsWith("Redis is unavailable"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("GET /actuator/redq" + path).isLessThan(BOUND);
		}
	}

}
