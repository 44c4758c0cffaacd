package io.redq.queue.autoconfigure.health;

import java.time.Duration;
import java.util.Map;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobQueueHealthIndicator} against a real Redis that the test stops.
 *
 * @author Redq team
 */
class JobQueueHealthIndicatorIntegrationTests {

	private RedisServer redis;

	private ApplicationContextRunner runner;

	@BeforeEach
	void startRedis() {
		// a server of its own, also under REDQ_TEST_REDIS_URL: the test stops it
		this.redis = RedisServer.local().start();
		this.runner = JobQueueContextRunner.on(this.redis)
			.withConfiguration(AutoConfigurations.of(JobQueueHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.timeout=1s")
			.withUserConfiguration(HealthJobs.class);
	}

	@AfterEach
	void stopRedis() {
		this.redis.close();
	}

	@Test
	void healthIsUpWithQueueDetailsAndDownWhenRedisStops() {
		this.runner.run((context) -> {
			JobQueueHealthIndicator indicator = context.getBean(JobQueueHealthIndicator.class);
			Health health = indicator.health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsKey("health");
			@SuppressWarnings("unchecked")
			Map<String, Object> queue = (Map<String, Object>) health.getDetails().get("health");
			assertThat(queue).containsEntry("ready", 0L).containsEntry("running", true).containsEntry("paused", false);
			this.redis.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health(true).getStatus().equals(Status.DOWN));
		});
	}

	@Test // GH-35
	void healthIsDownWithinTheReadTimeoutWhileRedisIsStoppedOrStalled() {
		this.runner.withPropertyValues("spring.data.redis.timeout=60s", "redq.inspection.timeout=2s").run((context) -> {
			JobQueueHealthIndicator indicator = context.getBean(JobQueueHealthIndicator.class);
			assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);
			this.redis.pause();
			assertDownWithin(indicator, Duration.ofSeconds(10));
			this.redis.resume();
			await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health(true).getStatus() == Status.UP);
			this.redis.kill();
			assertDownWithin(indicator, Duration.ofSeconds(10));
		});
	}

	// Lettuce would wait its command timeout of a minute
	private static void assertDownWithin(JobQueueHealthIndicator indicator, Duration bound) {
		long start = System.nanoTime();
		Health health = indicator.health(true);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(bound);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsKey("error");
	}

	@Test
	void exceededBacklogTurnsTheConfiguredStatus() {
		this.runner.withPropertyValues("redq.health.max-backlog=2").run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobQueueHealthIndicator indicator = context.getBean(JobQueueHealthIndicator.class);
			for (int i = 0; i < 3; i++) {
				dispatcher.dispatch(JobRequest.of("check", "x").delay(Duration.ofMinutes(5)).build());
			}
			assertThat(indicator.health(true).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	@Test
	void healthIndicatorCanBeDisabled() {
		this.runner.withPropertyValues("management.health.redq.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JobQueueHealthIndicator.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class HealthJobs {

		@QueuedJob(name = "check", queue = "health")
		void check(String payload) {
		}

	}

}
