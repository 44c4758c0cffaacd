package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.event.ContainerConsumingEvent;
import io.redq.queue.event.ContainerStartedEvent;
import io.redq.queue.event.ContainerStoppedEvent;
import io.redq.queue.event.ContainersConsumingEvent;
import io.redq.queue.event.JobDeadEvent;
import io.redq.queue.event.JobQueueEvent;
import io.redq.queue.event.QueuePausedEvent;
import io.redq.queue.event.QueueResumedEvent;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobInterceptor;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of the hooks {@link JobQueueAutoConfiguration} wires: the application's
 * {@link JobInterceptor} and {@link DispatchInterceptor} beans, in their order and inside
 * the observations, and the application events of queues and containers, against a real
 * Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobQueueHooksIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final TestObservationRegistry observationRegistry = TestObservationRegistry.create();

	private final ApplicationContextRunner runner;

	private final ApplicationContextRunner withoutJobs;

	JobQueueHooksIntegrationTests(RedisServer redis) {
		this.withoutJobs = JobQueueContextRunner.on(redis).withUserConfiguration(EventsOnly.class);
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.shutdown-timeout=2s")
			.withBean(TestObservationRegistry.class, () -> this.observationRegistry)
			.withUserConfiguration(HookedJobs.class);
	}

	@Test
	void interceptorBeansRunInTheirOrderInsideTheObservations() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			HookedJobs jobs = context.getBean(HookedJobs.class);
			String id = context.getBean(JobDispatcher.class).dispatch("work", "x").id();
			await().atMost(DEADLINE).until(() -> jobs.calls.size() == 5);
			assertThat(jobs.calls).containsExactly("dispatch tenant", "first intercept observed: true",
					"second intercept", "work x acme", "first afterSuccess " + id);
		});
	}

	@Test
	void containersAndQueuesPublishTheirEvents() {
		this.runner.run((context) -> {
			HookedJobs jobs = context.getBean(HookedJobs.class);
			await().atMost(DEADLINE)
				.until(() -> jobs.events.stream().anyMatch(ContainersConsumingEvent.class::isInstance));
			assertThat(jobs.events).map(JobQueueHooksIntegrationTests::describe)
				.containsExactly("ContainerStartedEvent hooked", "ContainerConsumingEvent hooked",
						"ContainersConsumingEvent [hooked]");
			String id = context.getBean(JobDispatcher.class).dispatch("dies", "x").id();
			await().atMost(DEADLINE).until(() -> jobs.events.stream().anyMatch(JobDeadEvent.class::isInstance));
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			operations.pause("hooked");
			operations.resume("hooked");
			assertThat(jobs.events.subList(3, jobs.events.size())).map(JobQueueHooksIntegrationTests::describe)
				.containsExactly("JobDeadEvent hooked " + id + " dies: always fails", "QueuePausedEvent hooked",
						"QueueResumedEvent hooked");
			context.close();
			assertThat(jobs.events).last()
				.extracting(JobQueueHooksIntegrationTests::describe)
				.isEqualTo("ContainerStoppedEvent hooked");
		});
	}

	@Test
	void anApplicationWithoutJobsIsConsumingAtOnce() {
		this.withoutJobs.run((context) -> assertThat(context.getBean(EventsOnly.class).events)
			.map(JobQueueHooksIntegrationTests::describe)
			.containsExactly("ContainersConsumingEvent []"));
	}

	private static String describe(ApplicationEvent event) {
		String name = event.getClass().getSimpleName();
		if (event instanceof JobDeadEvent dead) {
			return name + " " + dead.getQueue() + " " + dead.getJobId() + " " + dead.getJobName() + ": "
					+ dead.getException().getMessage();
		}
		if (event instanceof ContainersConsumingEvent consuming) {
			return name + " " + consuming.getQueues();
		}
		return name + " " + ((JobQueueEvent) event).getQueue();
	}

	@Configuration(proxyBeanMethods = false)
	static class HookedJobs {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<ApplicationEvent> events = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "work", queue = "hooked")
		void work(String payload, JobContext context) {
			this.calls.add("work " + payload + " " + context.getHeaders().get("tenant"));
		}

		@QueuedJob(name = "dies", queue = "hooked", maxAttempts = 1)
		void dies(String payload) {
			throw new IllegalStateException("always fails");
		}

		@EventListener({ JobQueueEvent.class, ContainersConsumingEvent.class })
		void on(ApplicationEvent event) {
			this.events.add(event);
		}

		@Bean
		DispatchInterceptor tenantHeader() {
			return new DispatchInterceptor() {

				@Override
				public void beforeDispatch(OutgoingJob job) {
					job.getHeaders().put("tenant", "acme");
					HookedJobs.this.calls.add("dispatch tenant");
				}

			};
		}

		@Bean
		@Order(2)
		JobInterceptor second() {
			return new JobInterceptor() {

				@Override
				public void intercept(JobContext job, @Nullable Object payload, Invocation invocation)
						throws Exception {
					HookedJobs.this.calls.add("second intercept");
					invocation.proceed();
				}

			};
		}

		@Bean
		@Order(1)
		JobInterceptor first(TestObservationRegistry observationRegistry) {
			return new JobInterceptor() {

				@Override
				public void intercept(JobContext job, @Nullable Object payload, Invocation invocation)
						throws Exception {
					HookedJobs.this.calls
						.add("first intercept observed: " + (observationRegistry.getCurrentObservation() != null));
					invocation.proceed();
				}

				@Override
				public void afterSuccess(JobContext job) {
					HookedJobs.this.calls.add("first afterSuccess " + job.getId());
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EventsOnly {

		final List<ApplicationEvent> events = new CopyOnWriteArrayList<>();

		@EventListener({ JobQueueEvent.class, ContainersConsumingEvent.class })
		void on(ApplicationEvent event) {
			this.events.add(event);
		}

	}

}
