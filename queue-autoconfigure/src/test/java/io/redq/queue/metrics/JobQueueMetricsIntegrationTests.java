package io.redq.queue.metrics;

import java.time.Duration;
import java.time.Instant;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.autoconfigure.JobQueueMetricsAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobRejectedException;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.ScriptExecutions;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for Redq's Micrometer meters after a known workload, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobQueueMetricsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner;

	JobQueueMetricsIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(JobQueueMetricsAutoConfiguration.class))
			.withUserConfiguration(MeteredJobs.class);
	}

	@Test
	void metersCountAKnownWorkloadExactly() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			for (int i = 0; i < 5; i++) {
				dispatcher.dispatch("work", "ok");
			}
			dispatcher.dispatch("work", "fail-once");
			dispatcher.dispatch("work", "reject");
			await().atMost(DEADLINE)
				.until(() -> context.getBean(JobQueueOperations.class)
					.stats("metered")
					.equals(new QueueStats(0, 0, 0, 1)));
			await().atMost(DEADLINE).until(() -> count(meters, "completed") == 6);
			assertThat(meters.get("redq.jobs.dispatched").tags("queue", "metered", "job", "work").counter().count())
				.isEqualTo(7);
			assertThat(count(meters, "completed")).isEqualTo(6);
			assertThat(meters.get("redq.jobs.processed")
				.tags("outcome", "retried", "exception", "IllegalStateException")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("redq.jobs.processed")
				.tags("outcome", "dead", "exception", "JobRejectedException")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("redq.jobs.wait").tags("queue", "metered", "job", "work").timer().count())
				.isEqualTo(8);
			assertThat(meters.find("redq.jobs.processed").tagKeys("id").meters()).isEmpty();
		});
	}

	@Test
	void enqueuedTicksOfARecurringJobCountAsDispatches() {
		this.runner.withUserConfiguration(TickingJobs.class).run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(DEADLINE)
				.until(() -> meters.find("redq.jobs.dispatched")
					.tags("queue", "metered", "job", "tick")
					.counters()
					.stream()
					.mapToDouble((counter) -> counter.count())
					.sum() >= 2);
		});
	}

	@Test
	void queueGaugesShareOneRedisReadPerQueue(RedisServer redis) {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			for (int i = 0; i < 3; i++) {
				dispatcher.dispatch(JobRequest.of("work", "ok").delay(Duration.ofMinutes(5)).build());
			}
			await().pollDelay(Duration.ofMillis(1100)).until(() -> true);
			long before = ScriptExecutions.count(redis);
			assertThat(gauge(meters, "delayed")).isEqualTo(3);
			assertThat(gauge(meters, "ready")).isZero();
			assertThat(gauge(meters, "reserved")).isZero();
			assertThat(gauge(meters, "dead")).isZero();
			assertThat(meters.get("redq.queue.oldest.age").tag("queue", "metered").gauge().value()).isZero();
			assertThat(ScriptExecutions.count(redis) - before).isLessThanOrEqualTo(2);
		});
	}

	@Test
	void queuesThisApplicationOnlyDispatchesToHaveGaugesToo() {
		this.runner.withPropertyValues("redq.jobs.send-report.queue=reports").run((context) -> {
			context.getBean(JobDispatcher.class)
				.dispatch(JobRequest.of("send-report", "q3").delay(Duration.ofMinutes(5)).build());
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("redq.queue.jobs").tag("queue", "reports").tag("state", "delayed").gauge().value())
				.isEqualTo(1);
		});
	}

	@Test
	void metricsBackOffWithoutAMeterRegistry(RedisServer redis) {
		JobQueueContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(JobQueueMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("jobDispatcher")
				.doesNotHaveBean(MicrometerJobMetrics.class));
	}

	private static double gauge(MeterRegistry meters, String state) {
		return meters.get("redq.queue.jobs").tags("queue", "metered", "state", state).gauge().value();
	}

	private static long count(MeterRegistry meters, String outcome) {
		return meters.find("redq.jobs.processed")
			.tags("queue", "metered", "job", "work", "outcome", outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	@Configuration(proxyBeanMethods = false)
	static class MeteredJobs {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@QueuedJob(name = "work", queue = "metered", backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void work(String what, JobContext context) {
			if (what.equals("reject")) {
				throw new JobRejectedException("rejected");
			}
			if (what.equals("fail-once") && context.getAttempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TickingJobs {

		@QueuedJob(name = "tick", queue = "metered")
		@Recurring(fixedRate = "100ms")
		void tick(Instant tick) {
		}

	}

}
