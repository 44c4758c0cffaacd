package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import io.redq.queue.testkit.GreetingJobs.Greeted;
import io.redq.queue.testkit.GreetingJobs.Greeting;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link JobTester} against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobTesterIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner;

	JobTesterIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					JobQueueAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.withBean(GreetingJobs.class);
	}

	@Test
	void awaitDrainedReturnsOnlyOnceEveryJobHasRun() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			IntStream.range(0, 50).forEach((i) -> dispatcher.dispatch("greet", new Greeting("n" + i)));
			JobTester.of(context).awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).hasSize(50);
			assertThat(context.getBean(JobQueueOperations.class).stats("greetings"))
				.isEqualTo(new QueueStats(0, 0, 0, 0));
		});
	}

	@Test
	void awaitDrainedOfAQueueFailsAtItsDeadlineWithWhatIsPending() {
		this.runner.run((context) -> {
			context.getBean(JobDispatcher.class)
				.dispatch(JobRequest.of("greet", new Greeting("later")).delay(Duration.ofHours(1)).build());
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> JobTester.of(context).awaitDrained("greetings", Duration.ofMillis(200)))
				.withMessageContaining("greetings=QueueStats[ready=0, delayed=1");
			assertThat(context.getBean(GreetingJobs.class).greeted).isEmpty();
		});
	}

	@Test
	void awaitCompletedWaitsForOneJobWhileATimerStaysSet() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			dispatcher.schedule("close-auction", 7L, Instant.now().plus(Duration.ofMinutes(30)));
			String id = dispatcher.dispatch("greet", new Greeting("Ada")).id();
			JobTester.of(context).awaitCompleted("greetings", id, DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo(id));
		});
	}

	@Test
	void awaitCompletedFailsForAJobThatDies() {
		this.runner.withPropertyValues("redq.job.max-attempts=1").run((context) -> {
			String id = context.getBean(JobDispatcher.class).dispatch("greet", new Greeting("")).id();
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> JobTester.of(context).awaitCompleted("greetings", id, DEADLINE))
				.withMessageContaining("died at")
				.withMessageContaining("instead of completing");
		});
	}

	@Test
	void makeDueRunsADelayedJobNow() {
		this.runner.run((context) -> {
			String id = context.getBean(JobDispatcher.class)
				.dispatch(JobRequest.of("greet", new Greeting("Ada")).delay(Duration.ofHours(1)).build())
				.id();
			JobTester jobs = JobTester.of(context);
			jobs.makeDue("greetings", id);
			jobs.awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo(id));
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> jobs.makeDue("greetings", id))
				.withMessage("No delayed job '" + id + "' in queue 'greetings'");
		});
	}

	@Test
	void makeTimerDueFiresATimerNow() {
		this.runner.run((context) -> {
			context.getBean(JobDispatcher.class).schedule("close-auction", 42L, Instant.now().plus(Duration.ofDays(1)));
			JobTester jobs = JobTester.of(context);
			jobs.makeTimerDue("close-auction", 42L);
			jobs.awaitDrained(DEADLINE);
			assertThat(context.getBean(GreetingJobs.class).greeted).singleElement()
				.satisfies((greeted) -> assertThat(greeted.context().getId()).isEqualTo("close-auction:42"));
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> jobs.makeTimerDue("close-auction", 43L))
				.withMessage("No timer of job 'close-auction' with key 43");
		});
	}

	@Test
	void runCallsTheHandlerOnTheCallingThreadWithItsPayloadThroughJson() throws Exception {
		this.runner.withPropertyValues("redq.listener.auto-startup=false").run((context) -> {
			JobTester jobs = JobTester.of(context);
			JobContext used = jobs.run("greet", new Greeting("Ada"));
			Greeted greeted = context.getBean(GreetingJobs.class).greeted.get(0);
			assertThat(greeted.thread()).isSameAs(Thread.currentThread());
			assertThat(greeted.greeting()).isEqualTo(new Greeting("Ada"));
			assertThat(greeted.context()).isSameAs(used);
			assertThat(used.getAttempt()).isEqualTo(1);
			assertThat(used.getQueue()).isEqualTo("greetings");
			assertThat(context.getBean(JobQueueOperations.class).stats("greetings"))
				.isEqualTo(new QueueStats(0, 0, 0, 0));
			TestJobContext lastAttempt = new TestJobContext("id-1", "greet", "greetings", 3, 3, Instant.now(),
					Instant.now(), java.util.Map.of("tenant", "t1"));
			jobs.run("greet", new Greeting("Grace"), lastAttempt);
			assertThat(context.getBean(GreetingJobs.class).greeted.get(1).context()).isSameAs(lastAttempt);
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> jobs.run("greet", new Greeting("")))
				.withMessage("no name");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> jobs.run("unknown", new Greeting("Ada")))
				.withMessageContaining("no handler of job 'unknown'");
		});
	}

}
