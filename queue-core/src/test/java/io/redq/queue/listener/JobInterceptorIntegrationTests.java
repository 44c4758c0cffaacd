package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.event.JobDeadEvent;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.RedisQueueExtension;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link JobInterceptor}s around the attempts of a {@link JobListenerContainer},
 * against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
class JobInterceptorIntegrationTests {

	private static final String QUEUE = "intercepted";

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final JobBackoff NO_WAIT = new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO);

	private static final ThreadLocal<String> TENANT = new ThreadLocal<>();

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private final List<JobDeadEvent> deaths = new CopyOnWriteArrayList<>();

	private RedisJobQueueOperations operations;

	private JobListenerContainerFactory containerFactory;

	@BeforeEach
	void setUp(RedisJobQueueOperations operations) {
		this.operations = operations;
		this.containerFactory = new JobListenerContainerFactory(operations.getListenerOperations(),
				JsonMapper.shared());
		this.containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
	}

	@AfterEach
	void tearDown() throws Exception {
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	@Test
	void interceptorsRunInTheirOrderAroundTheHandlerAndHearOfTheSuccessInReverse() {
		// given in the wrong order: the factory sorts them
		this.containerFactory
			.setInterceptors(List.of(new Recording("inner", this.calls), new OrderedRecording("outer", this.calls)));
		RedisJobDispatcher dispatcher = start(new JobDefinition("works", QUEUE, 3, Duration.ZERO, NO_WAIT, null),
				(payload, job) -> this.calls.add("handler " + payload));
		String id = dispatcher.dispatch("works", "x").id();
		await().atMost(DEADLINE).until(() -> this.calls.size() == 9);
		assertThat(this.calls).containsExactly("outer beforeRun " + id + " x", "outer intercept start",
				"inner beforeRun " + id + " x", "inner intercept start", "handler x", "inner intercept end",
				"outer intercept end", "inner afterSuccess " + id, "outer afterSuccess " + id);
		await().atMost(DEADLINE).until(() -> stats().equals(new QueueStats(0, 0, 0, 0)));
	}

	@Test
	void aFailedAttemptIsReportedWithItsRetryDelayAndTheDeathOnce() {
		this.containerFactory.setInterceptors(List.of(new Recording("interceptor", this.calls)));
		RedisJobDispatcher dispatcher = start(new JobDefinition("fails", QUEUE, 3, Duration.ZERO, NO_WAIT, null),
				(payload, job) -> {
					throw new IllegalStateException("failed " + job.getAttempt());
				});
		String id = dispatcher.dispatch("fails", "x").id();
		// each attempt's worker reports it after Redis has the failure
		await().atMost(DEADLINE)
			.until(() -> this.deaths.size() == 1
					&& this.calls.stream().filter((call) -> call.contains("after")).count() == 4);
		String lastFailure = "interceptor afterFailure " + id + " attempt 3 failed 3 retry null";
		String died = "interceptor afterDeath " + id + " failed 3";
		List<String> reported = this.calls.stream().filter((call) -> call.contains("after")).toList();
		// a retry without delay may run on another worker before the attempt before it
		// is reported: only the worker of the last attempt reports in a known order
		assertThat(reported).containsExactlyInAnyOrder(
				"interceptor afterFailure " + id + " attempt 1 failed 1 retry PT0S",
				"interceptor afterFailure " + id + " attempt 2 failed 2 retry PT0S", lastFailure, died);
		assertThat(reported.indexOf(died)).isGreaterThan(reported.indexOf(lastFailure));
		JobDeadEvent death = this.deaths.get(0);
		assertThat(death.getQueue()).isEqualTo(QUEUE);
		assertThat(death.getJobId()).isEqualTo(id);
		assertThat(death.getJobName()).isEqualTo("fails");
		assertThat(death.getAttempt()).isEqualTo(3);
		assertThat(death.getException()).hasMessage("failed 3");
		assertThat(this.operations.status(QUEUE, id).state()).isEqualTo(JobStatus.State.DEAD);
	}

	@Test
	void anInterceptorSetsThreadStateTheHandlerSeesAndClearsItAfterwards() {
		List<@Nullable String> seen = new CopyOnWriteArrayList<>();
		this.containerFactory.setInterceptors(List.of(new JobInterceptor() {

			@Override
			public void intercept(JobContext job, @Nullable Object payload, Invocation invocation) throws Exception {
				TENANT.set(job.getHeaders().get("tenant"));
				try {
					invocation.proceed();
				}
				finally {
					TENANT.remove();
				}
			}

			@Override
			public void afterSuccess(JobContext job) {
				seen.add("after: " + TENANT.get());
			}

		}));
		RedisJobDispatcher dispatcher = start(new JobDefinition("tenant", QUEUE, 3, Duration.ZERO, NO_WAIT, null),
				(payload, job) -> seen.add("handler: " + TENANT.get()));
		dispatcher.dispatch(JobRequest.of("tenant", "x").header("tenant", "acme").build());
		await().atMost(DEADLINE).until(() -> seen.size() == 2);
		assertThat(seen).containsExactly("handler: acme", "after: null");
	}

	@Test
	void aRejectionInBeforeRunEndsTheJobWithoutRunningItsHandler() {
		List<String> handled = new CopyOnWriteArrayList<>();
		this.containerFactory.setInterceptors(List.of(new JobInterceptor() {

			@Override
			public void beforeRun(JobContext job, @Nullable Object payload) {
				if (!job.getHeaders().containsKey("tenant")) {
					throw new JobRejectedException("no tenant");
				}
			}

		}, new Recording("second", this.calls)));
		RedisJobDispatcher dispatcher = start(new JobDefinition("guarded", QUEUE, 3, Duration.ZERO, NO_WAIT, null),
				(payload, job) -> handled.add(payload));
		String id = dispatcher.dispatch("guarded", "x").id();
		await().atMost(DEADLINE).until(() -> this.deaths.size() == 1);
		assertThat(handled).isEmpty();
		assertThat(this.calls).containsExactly("second afterFailure " + id + " attempt 1 no tenant retry null",
				"second afterDeath " + id + " no tenant");
		assertThat(this.deaths.get(0).getException()).isInstanceOf(JobRejectedException.class);
	}

	@Test
	void aTimeoutIsReportedAsAFailureOfTheAttempt() {
		this.containerFactory.setInterceptors(List.of(new Recording("interceptor", this.calls)));
		RedisJobDispatcher dispatcher = start(
				new JobDefinition("slow", QUEUE, 1, Duration.ofMillis(200), NO_WAIT, null), (payload, job) -> {
					Thread.sleep(DEADLINE.toMillis());
				});
		String id = dispatcher.dispatch("slow", "x").id();
		await().atMost(DEADLINE).until(() -> this.deaths.size() == 1);
		assertThat(this.deaths.get(0).getException()).isInstanceOf(TimeoutException.class);
		assertThat(this.calls).filteredOn((call) -> call.contains("after"))
			.containsExactly(
					"interceptor afterFailure " + id + " attempt 1 Timed out after PT0.2S: the handler was "
							+ "interrupted retry null",
					"interceptor afterDeath " + id + " Timed out after PT0.2S: the handler was interrupted");
	}

	@Test
	void anInterceptorThatThrowsAfterTheRunChangesNothing() {
		this.containerFactory.setInterceptors(List.of(new JobInterceptor() {

			@Override
			public void afterSuccess(JobContext job) {
				throw new IllegalStateException("interceptor failed");
			}

		}));
		List<String> handled = new CopyOnWriteArrayList<>();
		RedisJobDispatcher dispatcher = start(new JobDefinition("works", QUEUE, 3, Duration.ZERO, NO_WAIT, null),
				(payload, job) -> handled.add(payload));
		dispatcher.dispatch("works", "x");
		dispatcher.dispatch("works", "y");
		await().atMost(DEADLINE).until(() -> handled.size() == 2 && stats().equals(new QueueStats(0, 0, 0, 0)));
		assertThat(handled).containsExactlyInAnyOrder("x", "y");
		assertThat(this.deaths).isEmpty();
	}

	private RedisJobDispatcher start(JobDefinition definition, StringJobHandler.Handling handling) {
		JobListenerContainer container = this.containerFactory.createContainer(QUEUE,
				List.of(new StringJobHandler(definition, handling)));
		container.setApplicationEventPublisher((event) -> {
			if (event instanceof JobDeadEvent death) {
				this.deaths.add(death);
			}
		});
		container.start();
		this.closeables.push(container::stop);
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return name.equals(definition.name()) ? definition : null;
			}

			@Override
			public List<JobDefinition> all() {
				return List.of(definition);
			}

		}, JsonMapper.shared());
		this.closeables.push(dispatcher::stop);
		return dispatcher;
	}

	private QueueStats stats() {
		return this.operations.stats(QUEUE);
	}

	/**
	 * Records every call.
	 */
	static class Recording implements JobInterceptor {

		private final String name;

		private final List<String> calls;

		Recording(String name, List<String> calls) {
			this.name = name;
			this.calls = calls;
		}

		@Override
		public void beforeRun(JobContext job, @Nullable Object payload) {
			this.calls.add(this.name + " beforeRun " + job.getId() + " " + payload);
		}

		@Override
		public void intercept(JobContext job, @Nullable Object payload, Invocation invocation) throws Exception {
			this.calls.add(this.name + " intercept start");
			try {
				invocation.proceed();
			}
			finally {
				this.calls.add(this.name + " intercept end");
			}
		}

		@Override
		public void afterSuccess(JobContext job) {
			this.calls.add(this.name + " afterSuccess " + job.getId());
		}

		@Override
		public void afterFailure(JobContext job, Throwable failure, @Nullable Duration retryDelay) {
			this.calls.add(this.name + " afterFailure " + job.getId() + " attempt " + job.getAttempt() + " "
					+ failure.getMessage() + " retry " + retryDelay);
		}

		@Override
		public void afterDeath(JobContext job, Throwable failure) {
			this.calls.add(this.name + " afterDeath " + job.getId() + " " + failure.getMessage());
		}

	}

	@Order(1)
	static class OrderedRecording extends Recording {

		OrderedRecording(String name, List<String> calls) {
			super(name, calls);
		}

	}

}
