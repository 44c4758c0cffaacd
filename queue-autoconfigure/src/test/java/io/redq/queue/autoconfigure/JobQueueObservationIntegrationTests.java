package io.redq.queue.autoconfigure;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.support.micrometer.DefaultJobDispatchObservationConvention;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchSenderContext;
import io.redq.queue.support.micrometer.JobProcessReceiverContext;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of how {@link JobQueueAutoConfiguration} wires the dispatch and process
 * observations: {@code redq.observation-enabled}, the application's
 * {@code ObservationRegistry} and its convention beans, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobQueueObservationIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final TestObservationRegistry observationRegistry = TestObservationRegistry.create();

	private final MeterRegistry meterRegistry = new SimpleMeterRegistry();

	private final ApplicationContextRunner runner;

	JobQueueObservationIntegrationTests(RedisServer redis) {
		this.observationRegistry.observationConfig()
			.observationHandler(new DefaultMeterObservationHandler(this.meterRegistry));
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.shutdown-timeout=2s")
			.withBean(TestObservationRegistry.class, () -> this.observationRegistry)
			.withUserConfiguration(ObservedJobs.class);
	}

	@Test
	void observationsAreOffByDefault() {
		this.runner.run((context) -> {
			dispatchAndAwait(context, "work", "ok");
			TestObservationRegistryAssert.assertThat(this.observationRegistry).doesNotHaveAnyObservation();
		});
	}

	@Test
	void propertyTurnsOnTheDispatchAndProcessObservations() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			String id = dispatchAndAwait(context, "work", "ok");
			await().atMost(DEADLINE)
				.untilAsserted(() -> TestObservationRegistryAssert.assertThat(this.observationRegistry)
					.hasNumberOfObservationsWithNameEqualTo("redq.listener", 1));
			TestObservationRegistryAssert.assertThat(this.observationRegistry)
				.hasNumberOfObservationsEqualTo(2)
				.hasObservationWithNameEqualTo("redq.dispatcher")
				.that()
				.hasContextualNameEqualTo("publish observed")
				.hasLowCardinalityKeyValue("messaging.system", "redq")
				.hasLowCardinalityKeyValue("messaging.operation", "publish")
				.hasLowCardinalityKeyValue("messaging.destination.name", "observed")
				.hasLowCardinalityKeyValue("redq.job.name", "work")
				.hasHighCardinalityKeyValue("messaging.message.id", id)
				.doesNotHaveError()
				.hasBeenStopped();
			TestObservationRegistryAssert.assertThat(this.observationRegistry)
				.hasObservationWithNameEqualTo("redq.listener")
				.that()
				.hasContextualNameEqualTo("process observed")
				.hasLowCardinalityKeyValue("messaging.system", "redq")
				.hasLowCardinalityKeyValue("messaging.operation", "process")
				.hasLowCardinalityKeyValue("messaging.destination.name", "observed")
				.hasLowCardinalityKeyValue("redq.job.name", "work")
				.hasHighCardinalityKeyValue("messaging.message.id", id)
				.hasHighCardinalityKeyValue("redq.job.attempt", "1")
				.doesNotHaveError()
				.hasBeenStopped();
			// the meter handler tags timers with the low-cardinality keys only
			assertThat(this.meterRegistry.get("redq.listener")
				.tags("messaging.system", "redq", "messaging.operation", "process", "messaging.destination.name",
						"observed", "redq.job.name", "work", "error", "none")
				.timer()
				.count()).isOne();
			assertThat(this.meterRegistry.find("redq.dispatcher").tagKeys("messaging.message.id").meters()).isEmpty();
			assertThat(this.meterRegistry.find("redq.listener").tagKeys("messaging.message.id").meters()).isEmpty();
		});
	}

	@Test
	void handlerErrorIsRecordedOnTheProcessObservation() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			context.getBean(JobDispatcher.class).dispatch("fails", "x");
			await().atMost(DEADLINE)
				.until(() -> context.getBean(JobQueueOperations.class)
					.stats("observed")
					.equals(new QueueStats(0, 0, 0, 1)));
			TestObservationRegistryAssert.assertThat(this.observationRegistry)
				.hasObservationWithNameEqualTo("redq.listener")
				.that()
				.hasError()
				.assertThatError()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("always fails");
			assertThat(this.meterRegistry.get("redq.listener")
				.tags("redq.job.name", "fails", "error", "IllegalStateException")
				.timer()
				.count()).isOne();
		});
	}

	@Test
	void conventionBeansNameAndTagTheObservations() {
		this.runner.withPropertyValues("redq.observation-enabled=true")
			.withUserConfiguration(TenantConventions.class)
			.run((context) -> {
				String id = context.getBean(JobDispatcher.class)
					.dispatch(JobRequest.of("work", "ok").header("tenant", "acme").build())
					.id();
				await().atMost(DEADLINE)
					.untilAsserted(() -> TestObservationRegistryAssert.assertThat(this.observationRegistry)
						.hasNumberOfObservationsWithNameEqualTo("tenant.process", 1));
				TestObservationRegistryAssert.assertThat(this.observationRegistry)
					.hasNumberOfObservationsEqualTo(2)
					.hasObservationWithNameEqualTo("tenant.dispatch")
					.that()
					.hasLowCardinalityKeyValue("tenant", "acme")
					.hasLowCardinalityKeyValue("redq.job.name", "work")
					.hasHighCardinalityKeyValue("messaging.message.id", id);
				TestObservationRegistryAssert.assertThat(this.observationRegistry)
					.hasObservationWithNameEqualTo("tenant.process")
					.that()
					.hasLowCardinalityKeyValue("tenant", "acme")
					.hasLowCardinalityKeyValue("redq.job.name", "work");
			});
	}

	private String dispatchAndAwait(AssertableApplicationContext context, String job, String payload) {
		String id = context.getBean(JobDispatcher.class).dispatch(job, payload).id();
		await().atMost(DEADLINE).until(() -> context.getBean(ObservedJobs.class).done.equals(id));
		return id;
	}

	@Configuration(proxyBeanMethods = false)
	static class ObservedJobs {

		volatile String done = "";

		@QueuedJob(name = "work", queue = "observed")
		void work(String payload, JobContext context) {
			this.done = context.getId();
		}

		@QueuedJob(name = "fails", queue = "observed", maxAttempts = 1)
		void fails(String payload) {
			throw new IllegalStateException("always fails");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantConventions {

		@Bean
		DefaultJobDispatchObservationConvention tenantDispatchConvention() {
			return new DefaultJobDispatchObservationConvention() {

				@Override
				public String getName() {
					return "tenant.dispatch";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(JobDispatchSenderContext context) {
					return super.getLowCardinalityKeyValues(context).and("tenant",
							context.getCarrier().getOrDefault("tenant", "none"));
				}

			};
		}

		@Bean
		DefaultJobProcessObservationConvention tenantProcessConvention() {
			return new DefaultJobProcessObservationConvention() {

				@Override
				public String getName() {
					return "tenant.process";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(JobProcessReceiverContext context) {
					return super.getLowCardinalityKeyValues(context).and("tenant",
							context.getHeaders().getOrDefault("tenant", "none"));
				}

			};
		}

	}

}
