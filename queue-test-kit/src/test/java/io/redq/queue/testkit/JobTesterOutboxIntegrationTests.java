package io.redq.queue.testkit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.outbox.autoconfigure.JobOutboxAutoConfiguration;
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

/**
 * Tests for {@link JobTester} in an application with {@code queue-outbox}: the jobs of a
 * committed transaction wait in the outbox table, not in Redis, until the relay sends
 * them, and the waits wait for them too.
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
				.withMessageContaining("the outbox holds 1 jobs for its relay to send");
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

	private static String dispatchInTransaction(ApplicationContext context, String name) {
		AtomicReference<String> id = new AtomicReference<>();
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(
				(status) -> id.set(context.getBean(JobDispatcher.class).dispatch("greet", new Greeting(name)).id()));
		return id.get();
	}

}
