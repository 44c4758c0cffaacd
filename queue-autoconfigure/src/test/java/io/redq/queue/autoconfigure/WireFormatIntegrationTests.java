package io.redq.queue.autoconfigure;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The job envelope in Redis is Redq's own format: an application's
 * {@code spring.jackson.*} settings change how its payloads are written, never how Redq
 * writes and reads its envelope, so a deploy that changes them reads what the one before
 * it wrote, and the scripts find a job's level and group.
 *
 * @author Redq team
 */
@WithRedis
class WireFormatIntegrationTests {

	private static final String QUEUE = "wire";

	private static final List<String> runs = new CopyOnWriteArrayList<>();

	private static final List<BigDecimal> amounts = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner;

	WireFormatIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis).withUserConfiguration(Jobs.class);
	}

	@Test
	void theEnvelopeIsTheSameWhateverTheApplicationsJacksonSettings(RedisServer redis) {
		String plain = storedEnvelope(this.runner, redis, "plain");
		String odd = storedEnvelope(
				this.runner.withPropertyValues("spring.jackson.mapper.sort-properties-alphabetically=true",
						"spring.jackson.property-naming-strategy=SNAKE_CASE",
						"spring.jackson.default-property-inclusion=always"),
				redis, "odd");
		assertThat(odd).isEqualTo(plain);
		assertThat(plain).startsWith("{\"createdAt\":")
			.contains(",\"priority\":9,\"group\":\"tenant\",\"job\":\"wired\",");
	}

	@Test
	void aDeployThatChangesTheJacksonSettingsRunsWhatTheOneBeforeItDispatched() {
		runs.clear();
		// the first deploy writes with every property sorted and in snake case
		this.runner
			.withPropertyValues("redq.listener.auto-startup=false",
					"spring.jackson.mapper.sort-properties-alphabetically=true",
					"spring.jackson.mapper.sort-creator-properties-first=false",
					"spring.jackson.property-naming-strategy=SNAKE_CASE")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				dispatcher.dispatch(JobRequest.of("wired", "low").priority(1).maxAttempts(3).build());
				dispatcher.dispatch(JobRequest.of("wired", "high").priority(9).group("tenant").maxAttempts(3).build());
				// the scripts found each job's level and group
				QueueSnapshot snapshot = context.getBean(JobQueueOperations.class).snapshot(QUEUE);
				assertThat(snapshot.readyByPriority()).containsEntry(9, 1L).containsEntry(1, 1L);
				assertThat(snapshot.readyGroups()).isEqualTo(1);
			});
		// the next one runs them with Jackson's defaults, one at a time
		this.runner.withPropertyValues("redq.listener.concurrency=1", "redq.listener.prefetch=0").run((context) -> {
			await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 2);
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> operations.stats(QUEUE), (stats) -> stats.equals(new QueueStats(0, 0, 0, 0)));
		});
		// the level decided the order, and each run read its dispatch's attempts, not the
		// handler's
		assertThat(runs).containsExactly("high 3", "low 3");
	}

	@Test
	void decimalsArriveAsTheyWereDispatched() {
		amounts.clear();
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			dispatcher.dispatch("priced", new Price(new BigDecimal("20.00")));
			dispatcher.dispatch("priced", new Price(new BigDecimal("12345678901234567890.123456789")));
			await().atMost(Duration.ofSeconds(20)).until(() -> amounts.size() == 2);
		});
		// neither the scale nor the digits beyond a double's go
		assertThat(amounts).extracting(BigDecimal::toPlainString)
			.containsExactlyInAnyOrder("20.00", "12345678901234567890.123456789");
	}

	private static String storedEnvelope(ApplicationContextRunner runner, RedisServer redis, String payload) {
		String[] stored = new String[1];
		runner.withPropertyValues("redq.listener.auto-startup=false", "redq.listener.concurrency=1").run((context) -> {
			String id = context.getBean(JobDispatcher.class)
				.dispatch(JobRequest.of("wired", payload).id("same-" + payload).priority(9).group("tenant").build())
				.id();
			stored[0] = redis.command("HGET", "redq:{" + QUEUE + "}:jobs", id)
				.replaceAll("\"(createdAt|availableAt)\":\\d+", "\"$1\":0")
				.replace("\"" + payload + "\"", "\"p\"");
		});
		return stored[0];
	}

	record Price(BigDecimal amount) {
	}

	static class Jobs {

		@QueuedJob(name = "priced", queue = "priced")
		void priced(Price price) {
			amounts.add(price.amount());
		}

		@QueuedJob(name = "wired", queue = QUEUE, maxAttempts = 7)
		void wired(String payload, JobContext context) {
			runs.add(payload + " " + context.getMaxAttempts());
		}

	}

}
