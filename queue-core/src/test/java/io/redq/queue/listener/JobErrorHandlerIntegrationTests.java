package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import io.redq.queue.annotation.EnableJobQueue;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
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

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link JobErrorHandler}s deciding the retries of failed and timed-out jobs in
 * a {@link JobListenerContainer}, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
class JobErrorHandlerIntegrationTests {

	private static final String QUEUE = "errors";

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final JobBackoff NO_WAIT = new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO);

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private RedisJobQueueOperations operations;

	private JobListenerContainerFactory containerFactory;

	@BeforeEach
	void setUp(RedisJobQueueOperations operations) {
		this.operations = operations;
		this.containerFactory = new JobListenerContainerFactory(this.operations.getListenerOperations(),
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
	void aNotRetryableExceptionDiesOnItsFirstAttemptAndOthersAreRetried() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		errorHandler.addNotRetryableExceptions(IllegalArgumentException.class);
		this.containerFactory.setErrorHandler(errorHandler);
		Attempts attempts = new Attempts();
		RedisJobDispatcher dispatcher = start(
				handler("invalid", attempts, (payload) -> new IllegalArgumentException("bad " + payload)),
				handler("flaky", attempts, (payload) -> new IllegalStateException("flaky " + payload)));
		String invalid = dispatcher.dispatch("invalid", "x").id();
		String flaky = dispatcher.dispatch("flaky", "y").id();
		await().atMost(DEADLINE).until(() -> stats().dead() == 2);
		assertThat(attempts.of(invalid)).containsExactly(1);
		assertThat(attempts.of(flaky)).containsExactly(1, 2, 3);
		assertThat(error(invalid)).isEqualTo("java.lang.IllegalArgumentException: bad x");
		assertThat(error(flaky)).isEqualTo("java.lang.IllegalStateException: flaky y");
	}

	@Test
	void theRecovererIsCalledOnceWhenTheJobDiesAfterItIsRecordedDead() {
		Attempts attempts = new Attempts();
		List<String> recovered = new CopyOnWriteArrayList<>();
		this.containerFactory.setErrorHandler(new DefaultJobErrorHandler((job, exception) -> {
			JobStatus.State state = this.operations.status(QUEUE, job.getId()).state();
			recovered.add(job.getId() + " attempt " + job.getAttempt() + " " + state + ": " + exception.getMessage());
		}));
		RedisJobDispatcher dispatcher = start(
				handler("fails", attempts, (payload) -> new IllegalStateException("failed " + payload)));
		String id = dispatcher.dispatch("fails", "x").id();
		await().atMost(DEADLINE).until(() -> !recovered.isEmpty());
		assertThat(attempts.of(id)).containsExactly(1, 2, 3);
		assertThat(recovered).containsExactly(id + " attempt 3 DEAD: failed x");
		// the next job runs, so the container is past the death of the first
		String next = dispatcher.dispatch("fails", "y").id();
		await().atMost(DEADLINE).until(() -> recovered.size() == 2);
		assertThat(recovered).containsExactly(id + " attempt 3 DEAD: failed x", next + " attempt 3 DEAD: failed y");
	}

	@Test
	void aRecovererThatThrowsLeavesTheJobDeadAndTheContainerRunning() {
		Attempts attempts = new Attempts();
		this.containerFactory.setErrorHandler(new DefaultJobErrorHandler((job, exception) -> {
			throw new IllegalStateException("recoverer failed");
		}));
		RedisJobDispatcher dispatcher = start(
				handler("rejected", attempts, (payload) -> new JobRejectedException("no " + payload)),
				handler("works", attempts, (payload) -> null));
		String id = dispatcher.dispatch("rejected", "x").id();
		await().atMost(DEADLINE).until(() -> stats().dead() == 1);
		String next = dispatcher.dispatch("works", "y").id();
		await().atMost(DEADLINE).until(() -> stats().equals(new QueueStats(0, 0, 0, 1)));
		assertThat(attempts.of(id)).containsExactly(1);
		assertThat(attempts.of(next)).containsExactly(1);
		assertThat(this.operations.status(QUEUE, id).state()).isEqualTo(JobStatus.State.DEAD);
	}

	@Test
	void aRejectedJobDiesWhateverTheErrorHandlerSaysAndIsRecovered() {
		Attempts attempts = new Attempts();
		List<Throwable> recovered = new CopyOnWriteArrayList<>();
		this.containerFactory.setErrorHandler(new AlwaysRetry(recovered));
		RedisJobDispatcher dispatcher = start(
				handler("rejected", attempts, (payload) -> new JobRejectedException("no " + payload)));
		String id = dispatcher.dispatch("rejected", "x").id();
		await().atMost(DEADLINE).until(() -> recovered.size() == 1);
		assertThat(attempts.of(id)).containsExactly(1);
		assertThat(recovered.get(0)).isInstanceOf(JobRejectedException.class).hasMessage("no x");
		assertThat(error(id)).isEqualTo(JobRejectedException.class.getName() + ": no x");
	}

	@Test
	void anErrorHandlerThatThrowsLeavesTheJobToItsDefinition() {
		Attempts attempts = new Attempts();
		this.containerFactory.setErrorHandler((job, definition, exception) -> {
			throw new IllegalStateException("error handler failed");
		});
		RedisJobDispatcher dispatcher = start(
				handler("fails", attempts, (payload) -> new IllegalStateException("failed " + payload)));
		String id = dispatcher.dispatch("fails", "x").id();
		await().atMost(DEADLINE).until(() -> stats().dead() == 1);
		assertThat(attempts.of(id)).containsExactly(1, 2, 3);
		assertThat(error(id)).isEqualTo("java.lang.IllegalStateException: failed x");
	}

	@Test
	void aTimeoutGoesThroughTheErrorHandler() {
		Attempts attempts = new Attempts();
		List<String> decisions = new CopyOnWriteArrayList<>();
		List<Throwable> recovered = new CopyOnWriteArrayList<>();
		this.containerFactory.setErrorHandler(new JobErrorHandler() {

			@Override
			public @Nullable Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception) {
				decisions.add(exception.getClass().getSimpleName() + " on attempt " + job.getAttempt());
				return (exception instanceof TimeoutException) ? null : Duration.ZERO;
			}

			@Override
			public void recover(JobContext job, Throwable exception) {
				recovered.add(exception);
			}

		});
		JobHandler slow = handler(new JobDefinition("slow", QUEUE, 3, Duration.ofMillis(200), NO_WAIT, null), attempts,
				(payload) -> {
					Thread.sleep(DEADLINE.toMillis());
					return null;
				});
		String id = start(slow).dispatch("slow", "x").id();
		await().atMost(DEADLINE).until(() -> recovered.size() == 1);
		assertThat(decisions).containsExactly("TimeoutException on attempt 1");
		assertThat(attempts.of(id)).containsExactly(1);
		assertThat(recovered.get(0)).isInstanceOf(TimeoutException.class);
		assertThat(error(id)).isEqualTo("Timed out after PT0.2S: the handler was interrupted");
		assertThat(stats()).isEqualTo(new QueueStats(0, 0, 0, 1));
	}

	@Test
	void noRetryForOnTheAnnotationEndsTheJobOnItsFirstAttempt() {
		try (AnnotationConfigApplicationContext context = context(AnnotatedJobs.class)) {
			AnnotatedJobs jobs = context.getBean(AnnotatedJobs.class);
			RedisJobDispatcher dispatcher = dispatcher(context.getBean(JobCatalog.class));
			String invalid = dispatcher.dispatch("invalid", "x").id();
			String retried = dispatcher.dispatch("retried", "y").id();
			await().atMost(DEADLINE).until(() -> stats().dead() == 2);
			assertThat(jobs.attempts.of(invalid)).containsExactly(1);
			assertThat(jobs.attempts.of(retried)).containsExactly(1, 2, 3);
			assertThat(error(invalid)).isEqualTo("java.lang.IllegalStateException: wrapped; caused by "
					+ "java.lang.IllegalArgumentException: bad x");
		}
	}

	@Test
	void aJobsOwnErrorHandlerOverridesTheFactorys() {
		List<String> factoryRecovered = new CopyOnWriteArrayList<>();
		this.containerFactory.setErrorHandler(new JobErrorHandler() {

			@Override
			public @Nullable Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception) {
				return null;
			}

			@Override
			public void recover(JobContext job, Throwable exception) {
				factoryRecovered.add(job.getId());
			}

		});
		try (AnnotationConfigApplicationContext context = context(AnnotatedJobs.class)) {
			AnnotatedJobs jobs = context.getBean(AnnotatedJobs.class);
			RedisJobDispatcher dispatcher = dispatcher(context.getBean(JobCatalog.class));
			String own = dispatcher.dispatch("own-handler", "x").id();
			String factory = dispatcher.dispatch("retried", "y").id();
			await().atMost(DEADLINE).until(() -> stats().dead() == 2);
			assertThat(jobs.attempts.of(own)).as("retried by its own handler").containsExactly(1, 2);
			assertThat(jobs.attempts.of(factory)).as("never retried by the factory's").containsExactly(1);
			await().atMost(DEADLINE).until(() -> jobs.recovered.size() == 1 && factoryRecovered.size() == 1);
			assertThat(jobs.recovered).containsExactly(own);
			assertThat(factoryRecovered).containsExactly(factory);
		}
	}

	@Test
	void anErrorHandlerBeanThatIsMissingFailsAtStartup() {
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(() -> context(MissingErrorHandlerJobs.class).close())
			.havingCause()
			.isInstanceOf(BeanInitializationException.class)
			.withMessage("Could not register @QueuedJob method work of bean "
					+ "'jobErrorHandlerIntegrationTests.MissingErrorHandlerJobs': no JobErrorHandler bean named "
					+ "'missing' was found for its errorHandler attribute");
	}

	private RedisJobDispatcher start(JobHandler... handlers) {
		List<JobHandler> all = List.of(handlers);
		JobListenerContainer container = this.containerFactory.createContainer(QUEUE, all);
		container.start();
		this.closeables.push(container::stop);
		return dispatcher(definitions(all.stream().map(JobHandler::getDefinition).toList()));
	}

	private RedisJobDispatcher dispatcher(JobDefinitions definitions) {
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, definitions, JsonMapper.shared());
		this.closeables.push(dispatcher::stop);
		return dispatcher;
	}

	private AnnotationConfigApplicationContext context(Class<?> jobs) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
				JobListenerContainerFactory.class, () -> this.containerFactory);
		context.register(JobQueueConfiguration.class, jobs);
		context.refresh();
		return context;
	}

	private QueueStats stats() {
		return this.operations.stats(QUEUE);
	}

	private @Nullable Object error(String id) {
		return this.operations.getStore()
			.getTemplate()
			.opsForHash()
			.get(this.operations.getStore().keys(QUEUE).errors(), id);
	}

	private static JobDefinitions definitions(Collection<JobDefinition> definitions) {
		return new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return definitions.stream()
					.filter((definition) -> definition.name().equals(name))
					.findFirst()
					.orElse(null);
			}

			@Override
			public Collection<JobDefinition> all() {
				return definitions;
			}

		};
	}

	/**
	 * The attempts each job made, by id.
	 */
	static class Attempts {

		private final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

		void add(JobContext context) {
			this.attempts.computeIfAbsent(context.getId(), (id) -> new CopyOnWriteArrayList<>())
				.add(context.getAttempt());
		}

		List<Integer> of(String id) {
			return this.attempts.getOrDefault(id, List.of());
		}

	}

	@FunctionalInterface
	interface Outcome {

		/**
		 * Return what the attempt throws, or {@code null} to complete.
		 */
		@Nullable Exception of(@Nullable String payload) throws Exception;

	}

	private static JobHandler handler(String name, Attempts attempts, Outcome outcome) {
		return handler(new JobDefinition(name, QUEUE, 3, Duration.ZERO, NO_WAIT, String.class), attempts, outcome);
	}

	private static JobHandler handler(JobDefinition definition, Attempts attempts, Outcome outcome) {
		return new StringJobHandler(definition, (payload, context) -> {
			attempts.add(context);
			Exception failure = outcome.of(payload);
			if (failure != null) {
				throw failure;
			}
		});
	}

	/**
	 * Retries every failure at once, and records the jobs that die anyway.
	 */
	record AlwaysRetry(List<Throwable> recovered) implements JobErrorHandler {

		@Override
		public Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception) {
			return Duration.ZERO;
		}

		@Override
		public void recover(JobContext job, Throwable exception) {
			this.recovered.add(exception);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedJobs {

		final Attempts attempts = new Attempts();

		final List<String> recovered = new CopyOnWriteArrayList<>();

		@Bean
		JobErrorHandler retryOnce() {
			return new JobErrorHandler() {

				@Override
				public @Nullable Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception) {
					return (job.getAttempt() < 2) ? Duration.ZERO : null;
				}

				@Override
				public void recover(JobContext job, Throwable exception) {
					AnnotatedJobs.this.recovered.add(job.getId());
				}

			};
		}

		@QueuedJob(name = "invalid", queue = QUEUE, noRetryFor = IllegalArgumentException.class,
				backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void invalid(String payload, JobContext context) {
			this.attempts.add(context);
			throw new IllegalStateException("wrapped", new IllegalArgumentException("bad " + payload));
		}

		@QueuedJob(name = "retried", queue = QUEUE, backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void retried(String payload, JobContext context) {
			this.attempts.add(context);
			throw new IllegalArgumentException("bad " + payload);
		}

		@QueuedJob(name = "own-handler", queue = QUEUE, errorHandler = "${own.handler:retryOnce}")
		void ownHandler(String payload, JobContext context) {
			this.attempts.add(context);
			throw new IllegalStateException("failed " + payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingErrorHandlerJobs {

		@QueuedJob(queue = QUEUE, errorHandler = "missing")
		void work(String payload) {
		}

	}

}
