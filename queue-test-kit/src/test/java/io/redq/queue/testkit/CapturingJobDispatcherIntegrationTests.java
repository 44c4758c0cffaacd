package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import io.redq.queue.testkit.GreetingJobs.Greeting;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CapturingJobDispatcher} in an application on a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class CapturingJobDispatcherIntegrationTests {

	private final ApplicationContextRunner runner;

	CapturingJobDispatcherIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					JobQueueAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.withBean(GreetingJobs.class)
			.withBean(CapturingJobDispatcher.class);
	}

	@Test
	void recordsJobsWithoutRunningThem() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			assertThat(dispatcher).isInstanceOf(CapturingJobDispatcher.class);
			Instant end = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS);
			dispatcher.dispatch("greet", new Greeting("Ada"));
			dispatcher
				.dispatch(JobRequest.of("greet", new Greeting("Grace")).delay(Duration.ofMinutes(5)).id("g-1").build());
			assertThat(dispatcher.schedule("close-auction", 42L, end))
				.isEqualTo(new DispatchResult("close-auction:42", Outcome.CREATED));
			CapturingJobDispatcher captured = context.getBean(CapturingJobDispatcher.class);
			assertThat(captured.getJobs("greet")).satisfiesExactly((first) -> {
				assertThat(first.payload()).isEqualTo(new Greeting("Ada"));
				assertThat(first.due()).isEqualTo(Due.NOW);
				assertThat(first.id()).isNull();
			}, (second) -> {
				assertThat(second.payload()).isEqualTo(new Greeting("Grace"));
				assertThat(second.due()).isEqualTo(Due.after(Duration.ofMinutes(5)));
				assertThat(second.id()).isEqualTo("g-1");
			});
			assertThat(captured.getJobs("close-auction")).singleElement().satisfies((timer) -> {
				assertThat(timer.key()).isEqualTo(42L);
				assertThat(timer.id()).isEqualTo("close-auction:42");
				assertThat(timer.due()).isEqualTo(Due.at(end));
			});
			assertThat(dispatcher.findTimer("close-auction", 42L))
				.hasValueSatisfying((timer) -> assertThat(timer.dueAt()).isEqualTo(end));
			Instant later = end.plus(Duration.ofHours(1));
			assertThat(dispatcher.reschedule("close-auction", 42L, later)).isTrue();
			assertThat(captured.getJobs("close-auction")).singleElement()
				.satisfies((timer) -> assertThat(timer.due()).isEqualTo(Due.at(later)));
			assertThat(dispatcher.cancelTimer("close-auction", 42L)).isTrue();
			assertThat(dispatcher.reschedule("close-auction", 42L, later)).isFalse();
			assertThat(captured.getJobs()).hasSize(2);
			// nothing reached Redis, so nothing ran
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			assertThat(operations.stats("greetings")).isEqualTo(new QueueStats(0, 0, 0, 0));
			assertThat(context.getBean(GreetingJobs.class).greeted).isEmpty();
			captured.clear();
			assertThat(captured.getJobs()).isEmpty();
		});
	}

}
