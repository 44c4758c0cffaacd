package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.JdbcOutboxRelay;
import io.redq.queue.outbox.autoconfigure.JobOutboxAutoConfiguration;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import io.redq.queue.testkit.GreetingJobs.Greeting;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobTester} in an application with {@code queue-outbox}: the jobs of a
 * committed transaction wait in the outbox table, not in Redis, until the relay sends
 * them, and the waits, makeDue and makeTimerDue wait for them too.
 *
 * @author Redq team
 */
@WithRedis
class JobTesterOutboxIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner;

	JobTesterOutboxIntegrationTests(RedisServer redis) {
		redis.flushAll();
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					JobQueueAutoConfiguration.class, JobOutboxAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.datasource.generate-unique-name=true")
			.withBean(GreetingJobs.class);
	}

	@Test
	void theWaitsFailWhileTheOutboxHoldsTheJobOfACommittedTransaction() {
		this.runner.withPropertyValues("redq.outbox.relay.enabled=false").run((context) -> {
			String id = dispatchInTransaction(context, "Ada");
			JobTester jobs = JobTester.of(context);
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> jobs.awaitDrained("greetings", Duration.ofMillis(200)))
				.withMessageContaining("the outbox holds 1 rows for its relay to send");
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> jobs.awaitCompleted("greetings", id, Duration.ofMillis(200)))
				.withMessageContaining("not completed within");
			assertThat(context.getBean(GreetingJobs.class).greeted).isEmpty();
		});
	}

	@Test
	void theWaitsReturnOnceTheRelaySentTheJobAndItRan() {
		this.runner.run((context) -> {
			JobTester jobs = JobTester.of(context);
			String first = dispatchInTransaction(context, "Ada");
			jobs.awaitCompleted("greetings", first, DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).hasSize(1);
			dispatchInTransaction(context, "Grace");
			jobs.awaitDrained("greetings", DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).hasSize(2);
		});
	}

	@Test
	void makeDueWaitsUntilTheRelaySentTheDelayedJobOfACommittedTransaction() {
		this.runner.withPropertyValues("redq.outbox.relay.enabled=false").run((context) -> {
			AtomicReference<String> id = new AtomicReference<>();
			inTransaction(context,
					(dispatcher) -> id.set(dispatcher
						.dispatch(JobRequest.of("greet", new Greeting("Ada")).delay(Duration.ofHours(1)).build())
						.id()));
			JobTester jobs = JobTester.of(context);
			awaitAfterRelay(context, CompletableFuture.runAsync(() -> jobs.makeDue("greetings", id.get())));
			jobs.awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo(id.get()));
		});
	}

	@Test
	void makeTimerDueWaitsUntilTheRelaySentTheTimerOfACommittedTransaction() {
		this.runner.withPropertyValues("redq.outbox.relay.enabled=false").run((context) -> {
			inTransaction(context,
					(dispatcher) -> dispatcher.schedule("close-auction", 42L, Instant.now().plus(Duration.ofDays(1))));
			JobTester jobs = JobTester.of(context);
			awaitAfterRelay(context, CompletableFuture.runAsync(() -> jobs.makeTimerDue("close-auction", 42L)));
			jobs.awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo("close-auction:42"));
		});
	}

	@Test
	void makeTimerDueWaitsUntilTheRelayMovedTheTimerAsACommittedTransactionDid() {
		this.runner.withPropertyValues("redq.outbox.relay.enabled=false").run((context) -> {
			inTransaction(context,
					(dispatcher) -> dispatcher.schedule("close-auction", 42L, Instant.now().plus(Duration.ofDays(1))));
			relay(context);
			// a row that moves a timer holds no job
			inTransaction(context, (dispatcher) -> dispatcher.reschedule("close-auction", 42L,
					Instant.now().plus(Duration.ofDays(2))));
			JobTester jobs = JobTester.of(context);
			awaitAfterRelay(context, CompletableFuture.runAsync(() -> jobs.makeTimerDue("close-auction", 42L)));
			jobs.awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo("close-auction:42"));
		});
	}

	/**
	 * Assert that a call of the tester is still waiting while the outbox holds a row,
	 * relay the row, then wait for the call.
	 */
	private static void awaitAfterRelay(ApplicationContext context, CompletableFuture<Void> call) throws Exception {
		await("the call waiting while the outbox holds the row").during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(2))
			.until(() -> !call.isDone());
		relay(context);
		call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
	}

	/** Relay the outbox's rows as the relay that the test turned off would. */
	private static void relay(ApplicationContext context) {
		assertThat(new JdbcOutboxRelay(context.getBean(JdbcJobOutbox.class),
				context.getBean(RedisJobQueueOperations.class))
			.relay()).isPositive();
	}

	private static String dispatchInTransaction(ApplicationContext context, String name) {
		AtomicReference<String> id = new AtomicReference<>();
		inTransaction(context, (dispatcher) -> id.set(dispatcher.dispatch("greet", new Greeting(name)).id()));
		return id.get();
	}

	private static void inTransaction(ApplicationContext context, Consumer<JobDispatcher> work) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> work.accept(context.getBean(JobDispatcher.class)));
	}

}
