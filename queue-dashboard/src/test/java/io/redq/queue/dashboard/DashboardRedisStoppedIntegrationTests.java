package io.redq.queue.dashboard;

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
 * The dashboard's reads while its Redis, which answered before, is stopped or stalled:
 * each answers 503 within about the read timeout ({@code 2s} here), not after Lettuce's
 * command timeout (a minute here).
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.listener.auto-startup=false",
				"spring.data.redis.timeout=60s", "redq.inspection.timeout=2s" })
@DirtiesContext
class DashboardRedisStoppedIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(15);

	// the counts, statistics and lists that may be read from memory for a second more
	// come last
	private static final String[] READS = { "/api/queues/ops/jobs?state=dead", "/api/queues/ops/job?id=x",
			"/api/queues/ops/dead?error=x", "/api/search?by=id&text=x", "/api/actions", "/api/recurring",
			"/api/instances", "/api/queues/ops/statistics", "/api/queues/ops", "/api/queues" };

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
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/redq").build();
		await().atMost(BOUND)
			.untilAsserted(() -> this.client.get().uri("/api/queues").exchange().expectStatus().isOk());
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
		for (String path : READS) {
			long start = System.nanoTime();
			this.client.get()
				.uri(path)
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
				.expectBody()
				.jsonPath("$.error")
				.value((String error) -> assertThat(error).startsWith("Redis is unavailable"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("GET /redq" + path).isLessThan(BOUND);
		}
	}

}
