package io.redq.queue.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;

import io.redq.queue.annotation.EnableJobQueue;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobDeadException;
import io.redq.queue.core.JobResultUnavailableException;
import io.redq.queue.core.JobStatus;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of job results: a handler's return value kept with its job's completion, and
 * {@link JobResults} waits woken by Redis, on a real Redis of their own (restarted by one
 * test, with its data kept in an append-only file).
 *
 * @author Redq team
 */
class JobResultsIntegrationTests {

	private static final String QUEUE = "quotes";

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	/** Longer than any test waits, so that only the test's own deadline ends a wait. */
	private static final Duration LONG = Duration.ofMinutes(5);

	private static final Quote QUOTE = new Quote("lamp", new BigDecimal("12.50"), Instant.parse("2026-01-02T03:04:05Z"),
			List.of("spare bulb"), Map.of("vat", 20));

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private RedisServer redis;

	private RedisJobQueueOperations operations;

	private RedisJobDispatcher dispatcher;

	private JobResults results;

	private QuoteJobs jobs;

	@BeforeEach
	void setUp() {
		this.redis = RedisServer.local().arguments("--appendonly", "yes", "--appendfsync", "always").start();
		this.closeables.push(this.redis);
		LettuceConnectionFactory connectionFactory = TestConnections.connectionFactory(this.redis);
		this.closeables.push(connectionFactory::destroy);
		this.operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
		this.operations.getListenerOperations().getProgressOperations().setResultMaxSize(1000);
		JobListenerContainerFactory containerFactory = new JobListenerContainerFactory(
				this.operations.getListenerOperations(), JsonMapper.shared());
		containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
				JobListenerContainerFactory.class, () -> containerFactory);
		context.registerBean(RedisJobQueueOperations.class, () -> this.operations);
		context.register(JobQueueConfiguration.class, QuoteJobs.class);
		context.refresh();
		this.closeables.push(context);
		this.jobs = context.getBean(QuoteJobs.class);
		this.closeables.push(this.jobs.release::countDown);
		this.dispatcher = new RedisJobDispatcher(this.operations, context.getBean(JobCatalog.class),
				JsonMapper.shared());
		this.closeables.push(this.dispatcher::stop);
		this.results = new JobResults(this.operations.getStore());
		this.closeables.push(this.results);
	}

	@AfterEach
	void tearDown() throws Exception {
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	@Test
	void aWaitIsWokenWithTheResultOfAJobThatCompletesWhileItWaits() {
		String id = this.dispatcher.dispatch("slow-quote", "lamp").id();
		CompletableFuture<Quote> result = this.results.await(QUEUE, id, Quote.class, LONG);
		// the wait is registered in Redis while the job runs
		await().atMost(DEADLINE).until(() -> "1".equals(this.redis.command("EXISTS", "redq:{quotes}:waiting")));
		assertThat(this.operations.status(QUEUE, id).state()).isEqualTo(JobStatus.State.RESERVED);
		assertThat(result).isNotDone();
		this.jobs.release.countDown();
		assertThat(result).succeedsWithin(DEADLINE).isEqualTo(QUOTE);
	}

	@Test
	void aWaitThatBeginsAfterTheResultWasWrittenGetsItAtOnceAndValuesKeepTheirTypes() {
		String id = this.dispatcher.dispatch("quote", "lamp").id();
		String count = this.dispatcher.dispatch("count", "lamp").id();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(this.redis.command("GET", "redq:{quotes}:result:" + id))
			.isEqualTo("{\"item\":\"lamp\",\"price\":12.50,\"at\":\"2026-01-02T03:04:05Z\",\"extras\":[\"spare bulb\"],"
					+ "\"taxes\":{\"vat\":20}}");
		assertThat(this.results.await(QUEUE, id, Quote.class, LONG)).succeedsWithin(DEADLINE).isEqualTo(QUOTE);
		assertThat(this.results.await(QUEUE, count, Long.class, LONG)).succeedsWithin(DEADLINE).isEqualTo(12345678901L);
	}

	@Test
	void resultsAreKeptForTheirTimeToLive() {
		this.operations.getListenerOperations().getProgressOperations().setResultTimeToLive(Duration.ofMinutes(10));
		String id = this.dispatcher.dispatch("quote", "lamp").id();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		long ttl = Long.parseLong(this.redis.command("PTTL", "redq:{quotes}:result:" + id));
		assertThat(ttl).isBetween(1L, Duration.ofMinutes(10).toMillis());
	}

	@Test
	void aJobThatReturnsNothingStoresNothingAndAWaitForItGetsNullWhileItWaits() {
		String before = this.dispatcher.dispatch("nothing", "lamp").id();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(this.redis.command("KEYS", "redq:{quotes}:result:*")).isNullOrEmpty();
		// nobody waited: the plain path announces nothing
		assertThat(this.redis.command("INFO", "commandstats")).doesNotContain("cmdstat_publish");
		String waitedFor = this.dispatcher.dispatch("slow-nothing", "lamp").id();
		CompletableFuture<Object> waited = this.results.await(QUEUE, waitedFor, Object.class, LONG);
		await().atMost(DEADLINE).until(() -> "1".equals(this.redis.command("EXISTS", "redq:{quotes}:waiting")));
		this.jobs.release.countDown();
		assertThat(waited).succeedsWithin(DEADLINE).isNull();
		assertThat(this.redis.command("KEYS", "redq:{quotes}:result:*")).isNullOrEmpty();
		// afterwards Redis cannot tell it from an unknown job
		assertThat(this.results.await(QUEUE, before, Object.class, LONG)).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(JobResultUnavailableException.class)
			.withMessageStartingWith("No job " + before + " and no result of it in queue 'quotes': ");
	}

	@Test
	void aWaitForAJobThatDiesCompletesWithItsLastError() {
		String id = this.dispatcher.dispatch("failing-quote", "lamp").id();
		CompletableFuture<Quote> during = this.results.await(QUEUE, id, Quote.class, LONG);
		assertThat(during).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOfSatisfying(JobDeadException.class, (ex) -> {
				assertThat(ex.getId()).isEqualTo(id);
				assertThat(ex.getQueue()).isEqualTo(QUEUE);
				assertThat(ex.getError()).isEqualTo("java.lang.IllegalStateException: no quote for lamp");
			})
			.withMessage("Job " + id + " of queue 'quotes' is dead, so it has no result; its last error: "
					+ "java.lang.IllegalStateException: no quote for lamp");
		assertThat(this.results.await(QUEUE, id, Quote.class, LONG)).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(JobDeadException.class);
	}

	@Test
	void aResultOverTheLimitKillsItsJobWithAClearErrorAndIsNotKept() {
		String id = this.dispatcher.dispatch("huge-quote", "lamp").id();
		assertThat(this.results.await(QUEUE, id, String.class, LONG)).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOfSatisfying(JobDeadException.class,
					(ex) -> assertThat(ex.getError())
						.isEqualTo("io.redq.queue.listener.JobRejectedException: Result " + "of job " + id
								+ " is 2002 bytes of JSON, over the limit of 1000 (redq.results.max-size): "
								+ "return a smaller result, such as where the data is kept, or raise the limit"));
		assertThat(this.jobs.hugeRuns).isEqualTo(1);
		assertThat(this.redis.command("KEYS", "redq:{quotes}:result:*")).isNullOrEmpty();
	}

	@Test
	void aWaitEndsWithATimeoutExceptionAtItsTimeout() {
		String id = this.dispatcher.dispatch("slow-quote", "lamp").id();
		assertThat(this.results.await(QUEUE, id, Quote.class, Duration.ofMillis(500))).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(TimeoutException.class)
			.withMessage("No result of job " + id + " of queue 'quotes' within PT0.5S: it has not finished");
	}

	@Test
	void aWaitEndsAtItsTimeoutWhileRedisIsDown() {
		String id = this.dispatcher.dispatch("slow-quote", "lamp").id();
		this.redis.kill();
		assertThat(this.results.await(QUEUE, id, Quote.class, Duration.ofMillis(500))).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(TimeoutException.class);
		// the container and the dispatcher stop without waiting for Redis
		this.redis.restart();
	}

	@Test
	void aWaitStillRunningWhenJobResultsClosesEndsSayingSo() {
		String id = this.dispatcher.dispatch("slow-quote", "lamp").id();
		CompletableFuture<Quote> result = this.results.await(QUEUE, id, Quote.class, LONG);
		this.results.close();
		assertThat(result).failsWithin(DEADLINE)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessage("Stopped waiting for the result of job " + id + " of queue 'quotes': the application is "
					+ "closing");
	}

	@Test
	void aWaitAcrossARedisRestartGetsTheResult() {
		String id = this.dispatcher.dispatch("slow-quote", "lamp").id();
		CompletableFuture<Quote> result = this.results.await(QUEUE, id, Quote.class, LONG);
		await().atMost(DEADLINE).until(() -> "1".equals(this.redis.command("EXISTS", "redq:{quotes}:waiting")));
		this.redis.kill();
		// the job completes while Redis is down: its acknowledgement waits for Redis
		this.jobs.release.countDown();
		this.redis.restart();
		assertThat(result).succeedsWithin(DEADLINE).isEqualTo(QUOTE);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

	}

	record Quote(String item, BigDecimal price, Instant at, List<String> extras, Map<String, Integer> taxes) {
	}

	@Configuration(proxyBeanMethods = false)
	static class QuoteJobs {

		final CountDownLatch release = new CountDownLatch(1);

		volatile int hugeRuns;

		@QueuedJob(name = "quote", queue = QUEUE)
		Quote quote(String item) {
			return new Quote(item, QUOTE.price(), QUOTE.at(), QUOTE.extras(), QUOTE.taxes());
		}

		@QueuedJob(name = "count", queue = QUEUE)
		long count(String item) {
			return 12345678901L;
		}

		@QueuedJob(name = "slow-quote", queue = QUEUE)
		Quote slowQuote(String item) throws InterruptedException {
			this.release.await();
			return quote(item);
		}

		@QueuedJob(name = "nothing", queue = QUEUE)
		void nothing(String item) {
		}

		@QueuedJob(name = "slow-nothing", queue = QUEUE)
		void slowNothing(String item) throws InterruptedException {
			this.release.await();
		}

		@QueuedJob(name = "failing-quote", queue = QUEUE, maxAttempts = 1)
		Quote failingQuote(String item) {
			throw new IllegalStateException("no quote for " + item);
		}

		@QueuedJob(name = "huge-quote", queue = QUEUE, maxAttempts = 3)
		String hugeQuote(String item) {
			this.hugeRuns++;
			return "x".repeat(2000);
		}

	}

}
