package io.redq.queue.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.autoconfigure.JobQueueMetricsAutoConfiguration;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DuplicatePolicy;
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
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

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

	/** For workflows, whose steps in other queues wait for their migrators' hand-over. */
	private static final Duration WORKFLOW_DEADLINE = Duration.ofSeconds(60);

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
	void dispatchedCountsEachJobThatEnteredItsQueueByAnyDispatchButNoDuplicate() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			JobRequest pending = JobRequest.of("work", "ok").id("pending").delay(Duration.ofMinutes(5)).build();
			List<DispatchResult> results = new ArrayList<>();
			results.add(dispatcher.dispatch(pending));
			results.add(dispatcher.dispatch(pending));
			results.add(dispatcher.dispatch(JobRequest.of("work", "ok")
				.id("pending", DuplicatePolicy.REPLACE)
				.delay(Duration.ofMinutes(5))
				.build()));
			results.addAll(dispatcher.dispatchAll(
					List.of(pending, JobRequest.of("work", "ok").build(), JobRequest.of("work", "ok").build())));
			results.add(dispatcher.dispatchAsync(JobRequest.of("work", "ok").build()).get(10, TimeUnit.SECONDS));
			results.add(dispatcher.dispatchAsync(pending).get(10, TimeUnit.SECONDS));
			// concurrent dispatches of one id share script calls
			JobRequest shared = JobRequest.of("work", "ok").id("shared").delay(Duration.ofMinutes(5)).build();
			List<CompletableFuture<DispatchResult>> concurrent = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				concurrent.add(CompletableFuture.supplyAsync(() -> dispatcher.dispatch(shared)));
			}
			concurrent.forEach((future) -> results.add(future.join()));
			assertThat(results).extracting(DispatchResult::outcome)
				.containsOnly(Outcome.CREATED, Outcome.KEPT, Outcome.REPLACED);
			assertThat(results).filteredOn((result) -> result.outcome() == Outcome.CREATED).hasSize(5);
			assertThat(dispatched(meters, "metered", "work")).as("the jobs created, not those kept or replaced")
				.isEqualTo(5);
		});
	}

	@Test
	void jobsDispatchedInATransactionCountOnceTheCommitSentThem() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			JobRequest pending = JobRequest.of("work", "ok").id("pending").delay(Duration.ofMinutes(5)).build();
			dispatcher.dispatch(pending);
			List<CompletableFuture<DispatchResult>> sent = new ArrayList<>();
			new TransactionTemplate(new NoResourceTransactionManager()).executeWithoutResult((status) -> {
				sent.add(dispatcher.dispatchAsync(pending));
				sent.add(dispatcher.dispatchAsync(JobRequest.of("work", "ok").build()));
				sent.add(dispatcher.dispatchAsync(JobRequest.of("work", "ok").build()));
				assertThat(dispatched(meters, "metered", "work")).as("held until the commit").isEqualTo(1);
			});
			assertThat(sent).extracting((future) -> future.get(10, TimeUnit.SECONDS).outcome())
				.containsExactly(Outcome.KEPT, Outcome.CREATED, Outcome.CREATED);
			assertThat(dispatched(meters, "metered", "work")).as("the two created at the commit, not the one kept")
				.isEqualTo(3);
		});
	}

	@Test
	void everyStepOfAChainCountsWhenItEntersAnotherQueueButAnOnFailureJobNeverCalled() {
		this.runner.withUserConfiguration(FlowJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			ChainResult chain = dispatcher.dispatchChain(ChainRequest
				.of(JobRequest.of("step", "a").build(), JobRequest.of("hop", "b").build(),
						JobRequest.of("step", "c").build())
				.onFailure(JobRequest.of("callback", "failed").build())
				.build());
			await().atMost(WORKFLOW_DEADLINE)
				.untilAsserted(() -> assertThat(dispatcher.findChain(chain.chainId())).get()
					.extracting(ChainStatus::state)
					.isEqualTo(ChainStatus.State.SUCCEEDED));
			assertThat(context.getBean(FlowJobs.class).ran).containsExactly("a", "b", "c");
			// each next step is in another queue: the worker that ran the step before
			// enqueues it
			assertThat(dispatched(meters, "flow", "step")).as("the first step at once, the last as the chain went")
				.isEqualTo(2);
			assertThat(dispatched(meters, "flow-hop", "hop")).isOne();
			assertThat(dispatched(meters, "flow", "callback")).isZero();
		});
	}

	@Test
	void membersAndCallbacksOfABatchCountWhenEachEntersItsQueue() {
		this.runner.withUserConfiguration(FlowJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			dispatcher.dispatchBatch(
					BatchRequest.of(List.of(JobRequest.of("step", "a").build(), JobRequest.of("step", "b").build()))
						.onSuccess(JobRequest.of("callback", "succeeded").build())
						.onComplete(JobRequest.of("callback", "completed").build())
						.build());
			FlowJobs jobs = context.getBean(FlowJobs.class);
			await().atMost(WORKFLOW_DEADLINE)
				.untilAsserted(
						() -> assertThat(jobs.ran).containsExactlyInAnyOrder("a", "b", "succeeded", "completed"));
			assertThat(dispatched(meters, "flow", "step")).isEqualTo(2);
			assertThat(dispatched(meters, "flow", "callback")).as("each callback once the batch ended").isEqualTo(2);
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

	private static double dispatched(MeterRegistry meters, String queue, String job) {
		return meters.find("redq.jobs.dispatched")
			.tags("queue", queue, "job", job)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
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
	static class FlowJobs {

		final List<String> ran = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "step", queue = "flow")
		void step(String name) {
			this.ran.add(name);
		}

		@QueuedJob(name = "hop", queue = "flow-hop")
		void hop(String name) {
			this.ran.add(name);
		}

		@QueuedJob(name = "callback", queue = "flow")
		void callback(String name) {
			this.ran.add(name);
		}

	}

	/**
	 * Transactions with no resource: only their synchronizations, which the
	 * transaction-aware dispatcher sends its jobs from after the commit.
	 */
	@SuppressWarnings("serial")
	static class NoResourceTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
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
