package io.redq.queue.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.ScriptExecutions;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End-to-end tests of {@code @QueuedJob} handlers run by {@link JobListenerContainer}s
 * against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobListenerContainerIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner;

	JobListenerContainerIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.shutdown-timeout=2s")
			.withUserConfiguration(Jobs.class);
	}

	@Test
	void dispatchedJobIsHandledWithItsPayloadAndContext() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = dispatcher(context)
				.dispatch(JobRequest.of("greet", new Greeting("Ann", 3)).header("tenant", "acme").build())
				.id();
			Attempt attempt = jobs.awaitAttempts(id, 1).get(0);
			assertThat(attempt.payload()).isEqualTo(new Greeting("Ann", 3));
			assertThat(attempt.context().getId()).isEqualTo(id);
			assertThat(attempt.context().getJobName()).isEqualTo("greet");
			assertThat(attempt.context().getQueue()).isEqualTo("it");
			assertThat(attempt.context().getAttempt()).isEqualTo(1);
			assertThat(attempt.context().getMaxAttempts()).isEqualTo(3);
			assertThat(attempt.context().getHeaders()).containsEntry("tenant", "acme");
			awaitQueueEmpty(context, "it");
		});
	}

	@Test
	void payloadTypeSelectsTheJob() {
		this.runner.run((context) -> {
			String id = dispatcher(context).dispatch(new Greeting("Bob", 1)).id();
			assertThat(context.getBean(Jobs.class).awaitAttempts(id, 1).get(0).payload())
				.isEqualTo(new Greeting("Bob", 1));
		});
	}

	@Test
	void delayedJobsRunNeverBeforeTheirDueTime() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<String> ids = new ArrayList<>();
			for (int i = 1; i <= 10; i++) {
				ids.add(dispatcher(context)
					.dispatch(JobRequest.of("greet", new Greeting("late", i)).delay(Duration.ofMillis(i * 70)).build())
					.id());
			}
			for (int i = 0; i < ids.size(); i++) {
				Attempt attempt = jobs.awaitAttempts(ids.get(i), 1).get(0);
				Instant due = attempt.context().getAvailableAt();
				assertThat(Duration.between(attempt.context().getCreatedAt(), due))
					.isEqualTo(Duration.ofMillis((i + 1) * 70));
				// how soon after is measured by the timers benchmark, not asserted on a
				// loaded machine
				assertThat(attempt.startedAt()).isAfterOrEqualTo(due);
			}
		});
	}

	@Test
	void failingJobIsRetriedWithBackoffThenDeadWithItsError() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = dispatcher(context).dispatch("always-fails", "x").id();
			List<Attempt> attempts = jobs.awaitAttempts(id, 3);
			await().atMost(DEADLINE).until(() -> stats(context, "it").dead() == 1);
			assertThat(Duration.between(attempts.get(0).startedAt(), attempts.get(1).startedAt()))
				.isGreaterThanOrEqualTo(Duration.ofMillis(100));
			assertThat(Duration.between(attempts.get(1).startedAt(), attempts.get(2).startedAt()))
				.isGreaterThanOrEqualTo(Duration.ofMillis(200));
			assertThat(error(context, "it", id)).isEqualTo("java.lang.IllegalStateException: failure 3");
			assertThat(stats(context, "it")).isEqualTo(new QueueStats(0, 0, 0, 1));
			assertThat(jobs.attempts(id)).hasSize(3);
		});
	}

	@Test
	void rejectedJobIsDeadAtOnce() {
		this.runner.run((context) -> {
			String id = dispatcher(context).dispatch("rejects", "x").id();
			await().atMost(DEADLINE).until(() -> stats(context, "it").dead() == 1);
			assertThat(error(context, "it", id)).isEqualTo(JobRejectedException.class.getName() + ": not for me");
			assertThat(context.getBean(Jobs.class).attempts(id)).hasSize(1);
		});
	}

	@Test
	void timeoutInterruptsTheHandlerAndRetries() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = dispatcher(context).dispatch("slow-first-time", "x").id();
			List<Attempt> attempts = jobs.awaitAttempts(id, 2);
			await().atMost(DEADLINE).until(() -> jobs.interrupted.contains(id));
			assertThat(attempts.get(0).context().isLeaseLost()).isTrue();
			assertThat(attempts.get(1).context().getAttempt()).isEqualTo(2);
			awaitQueueEmpty(context, "it");
			assertThat(jobs.completed).containsOnlyOnce(id);
		});
	}

	@Test
	void handlerThatIgnoresItsTimeoutIsRedeliveredAndItsLateResultDiscarded() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = dispatcher(context).dispatch("stalls-first-time", "x").id();
			jobs.awaitAttempts(id, 2);
			await().atMost(DEADLINE).until(() -> jobs.completed.size() == 2);
			// the second attempt completed while the first was still stalled; the first
			// one's result is discarded
			assertThat(jobs.completed).containsExactly(id + "#2", id + "#1");
			awaitQueueEmpty(context, "it");
		});
	}

	@Test
	void handlerLearnsThatItsLeaseWasLostAndItsResultIsRefused() {
		this.runner.withPropertyValues("redq.queues.lease.lease-time=150ms").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = dispatcher(context).dispatch("waits-for-lease-loss", "x").id();
			jobs.awaitAttempts(id, 1);
			// another worker takes the job over on the same attempt, starts it (and then
			// dies): the renewal finds the lease token changed, and the late result is
			// refused because a run of the job started since (an unstarted takeover would
			// accept it)
			QueueKeys keys = keys(context, "lease");
			template(context).opsForHash().put(keys.leases(), id, "stolen:1");
			template(context).opsForHash().put(keys.runs(), id, "stolen:1");
			template(context).opsForSet().add(keys.started(), id);
			await().atMost(DEADLINE).until(() -> jobs.completed.contains(id + "#1"));
			assertThat(jobs.attempts(id).get(0).context().isLeaseLost()).isTrue();
			// the first attempt's result was not acknowledged: the job runs again once
			// the stolen lease expires
			await().atMost(DEADLINE).until(() -> jobs.completed.contains(id + "#2"));
			awaitQueueEmpty(context, "lease");
		});
	}

	@Test
	void deadJobsPastTheirAgeGoWhileNothingElseDies() {
		this.runner.withPropertyValues("redq.dead-letter.time-to-live=500ms").run((context) -> {
			String id = dispatcher(context).dispatch("rejects", "x").id();
			await().atMost(DEADLINE).until(() -> stats(context, "it").dead() == 1);
			// no other job dies to trim it: the idle container's migrator wakes for it
			await().atMost(DEADLINE).until(() -> stats(context, "it").dead() == 0);
			assertThat(template(context).opsForHash().hasKey(keys(context, "it").jobs(), id)).isFalse();
			assertThat(error(context, "it", id)).isNull();
		});
	}

	@Test
	void malformedJobAndUnknownJobNameGoToDeadWithTheReason() {
		this.runner.run((context) -> {
			StringRedisTemplate template = template(context);
			QueueKeys keys = keys(context, "it");
			template.opsForHash().put(keys.jobs(), "garbage", "{not json");
			template.opsForHash()
				.put(keys.jobs(), "stranger",
						"{\"id\":\"stranger\",\"job\":\"nobody\",\"queue\":\"it\",\"maxAttempts\":3,\"payload\":1}");
			template.opsForHash().put(keys.jobs(), "nameless", "{\"id\":\"nameless\",\"payload\":1}");
			// bytes that are not even UTF-8, as another program might push them
			template.execute((RedisCallback<Object>) (connection) -> connection.hashCommands()
				.hSet(keys.jobs().getBytes(StandardCharsets.UTF_8), "binary".getBytes(StandardCharsets.UTF_8),
						new byte[] { (byte) 0xFF, (byte) 0xFE, 0x00, 0x7B }));
			template.opsForList().rightPushAll(keys.ready(), "garbage", "stranger", "nameless", "binary");
			// as JSON, which the dispatcher leaves to the worker to read
			JsonNode notAGreeting = JsonMapper.shared().valueToTree("not a greeting");
			String unreadable = dispatcher(context).dispatch("greet", notAGreeting).id();
			template.opsForZSet().add(keys.wake(), "w", 0);
			await().atMost(DEADLINE).until(() -> stats(context, "it").dead() == 5);
			assertThat(error(context, "it", "binary")).asString().startsWith("Malformed job");
			assertThat(error(context, "it", "nameless")).asString().endsWith("it names no job");
			assertThat(error(context, "it", "garbage")).asString()
				.startsWith("Malformed job: its data in Redis is not a Redq job envelope");
			assertThat(error(context, "it", "stranger")).asString()
				.startsWith("No handler for job 'nobody' in this application (queue 'it' has handlers for [")
				.contains("greet");
			assertThat(error(context, "it", unreadable)).asString()
				.startsWith(JobRejectedException.class.getName() + ": Payload of job 'greet' cannot be read as "
						+ Greeting.class.getName());
			String next = dispatcher(context).dispatch("greet", new Greeting("still running", 1)).id();
			context.getBean(Jobs.class).awaitAttempts(next, 1);
		});
	}

	@Test
	void scriptCacheFlushedMidRunLosesNothing(RedisServer redis) {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				ids.add(dispatcher(context).dispatch("greet", new Greeting("flush", i)).id());
				if (i % 100 == 0) {
					redis.command("SCRIPT", "FLUSH");
				}
			}
			await().atMost(DEADLINE).until(() -> jobs.attempts.keySet().containsAll(ids));
			awaitQueueEmpty(context, "it");
		});
	}

	@Test
	void idleContainerBlocksInsteadOfPolling(RedisServer redis) {
		this.runner.withPropertyValues("redq.listener.poll-timeout=300ms").run((context) -> {
			String id = dispatcher(context).dispatch("greet", new Greeting("warm up", 1)).id();
			context.getBean(Jobs.class).awaitAttempts(id, 1);
			long scripts = ScriptExecutions.count(redis);
			long migrations = ScriptExecutions.calls(redis, "zrangebyscore");
			CountDownLatch idle = new CountDownLatch(1);
			assertThat(idle.await(3, TimeUnit.SECONDS)).isFalse();
			// three idle containers make one reserve call each per poll timeout
			// (a polling loop would make thousands), and their migrators sleep:
			// nothing is delayed or reserved
			assertThat(ScriptExecutions.count(redis) - scripts).as("script calls of idle containers in 3s")
				.isLessThanOrEqualTo(3 * (3000 / 300 + 1));
			assertThat(ScriptExecutions.calls(redis, "zrangebyscore") - migrations).as("migrations of idle containers")
				.isZero();
			String next = dispatcher(context).dispatch("greet", new Greeting("wake up", 1)).id();
			Attempt attempt = context.getBean(Jobs.class).awaitAttempts(next, 1).get(0);
			assertThat(Duration.between(attempt.context().getCreatedAt(), attempt.startedAt()))
				.isLessThan(Duration.ofMillis(100));
		});
	}

	@Test
	void applicationsSharingAQueueRunEachJobOnce() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				JobDispatcher dispatcher = dispatcher((i % 2 == 0) ? first : second);
				ids.add(dispatcher
					.dispatch(
							JobRequest.of("greet", new Greeting("shared", i)).delay(Duration.ofMillis(i % 300)).build())
					.id());
			}
			Jobs one = first.getBean(Jobs.class);
			Jobs two = second.getBean(Jobs.class);
			await().atMost(DEADLINE).until(() -> one.attempts.size() + two.attempts.size() >= ids.size());
			awaitQueueEmpty(first, "it");
			List<String> ran = new ArrayList<>(one.attempts.keySet());
			ran.addAll(two.attempts.keySet());
			assertThat(ran).containsExactlyInAnyOrderElementsOf(ids);
			assertThat(one.attempts.values()).allSatisfy((attempts) -> assertThat(attempts).hasSize(1));
			assertThat(two.attempts.values()).allSatisfy((attempts) -> assertThat(attempts).hasSize(1));
		}));
	}

	@Test
	void restartedContainerRunsDelayedJobsAgain() {
		// a short poll timeout, so that the stopped migrator's last schedule is due
		// before the new job
		this.runner.withPropertyValues("redq.listener.poll-timeout=100ms").run((context) -> {
			JobListenerContainer container = context.getBean(JobListenerRegistry.class).getListenerContainer("it");
			container.stop();
			assertThat(container.isRunning()).isFalse();
			// let the stopped migrator's last schedule pass
			await().pollDelay(Duration.ofMillis(300)).until(() -> true);
			container.start();
			String id = dispatcher(context)
				.dispatch(JobRequest.of("greet", new Greeting("again", 1)).delay(Duration.ofMillis(200)).build())
				.id();
			context.getBean(Jobs.class).awaitAttempts(id, 1);
		});
	}

	@Test
	void aHandlerThatOutlivesAStopFreesItsPlaceInThatRunNotInTheRestartedOne() {
		this.runner
			.withPropertyValues("redq.listener.concurrency=1", "redq.listener.prefetch=0",
					"redq.listener.shutdown-timeout=100ms")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				JobListenerContainer container = context.getBean(JobListenerRegistry.class).getListenerContainer("it");
				String id = dispatcher(context).dispatch("ignores-stop", "x").id();
				jobs.awaitAttempts(id, 1);
				// the stop hands the job back; its handler ignores the interrupt
				container.stop();
				container.start();
				jobs.awaitAttempts(id, 2);
				jobs.letGo.countDown();
				await().atMost(DEADLINE).until(() -> jobs.completed.contains(id + "#1"));
				String running = dispatcher(context).dispatch("takes-forever", "x").id();
				jobs.awaitAttempts(running, 1);
				container.stop();
				// had the first handler freed its place in this run, the stop would
				// have found every place free and not handed the running job back
				assertThat(jobs.interrupted).containsExactly(running);
				assertThat(stats(context, "it")).isEqualTo(new QueueStats(1, 0, 0, 0));
			});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void idleWaitEndsBeforeAShortRedisCommandTimeout(CapturedOutput output) {
		// a wait longer than the command timeout failed every poll, with a warning
		this.runner.withPropertyValues("spring.data.redis.timeout=1s").run((context) -> {
			await().during(Duration.ofSeconds(3))
				.atMost(DEADLINE)
				.until(() -> !output.getOut().contains("Could not reserve jobs of queue 'it'"));
			String id = dispatcher(context).dispatch("greet", new Greeting("still there", 1)).id();
			context.getBean(Jobs.class).awaitAttempts(id, 1);
		});
	}

	@Test
	void pauseInOneApplicationStopsReservationsInAnother() {
		this.runner.run((first) -> this.runner.run((second) -> {
			JobQueueOperations operations = first.getBean(JobQueueOperations.class);
			operations.pause("it");
			String id = dispatcher(first).dispatch("greet", new Greeting("paused", 1)).id();
			await().pollDelay(Duration.ofMillis(500)).until(() -> true);
			assertThat(first.getBean(Jobs.class).attempts(id)).isEmpty();
			assertThat(second.getBean(Jobs.class).attempts(id)).isEmpty();
			assertThat(stats(second, "it").ready()).isEqualTo(1);
			second.getBean(JobQueueOperations.class).resume("it");
			await().atMost(DEADLINE)
				.until(() -> first.getBean(Jobs.class).attempts(id).size()
						+ second.getBean(Jobs.class).attempts(id).size() == 1);
		}));
	}

	@Test
	void gracefulShutdownFinishesRunningJobsAndLeavesTheRestReady(RedisServer redis) {
		Jobs[] jobs = new Jobs[1];
		this.runner.withPropertyValues("redq.listener.concurrency=2", "redq.listener.prefetch=32").run((context) -> {
			jobs[0] = context.getBean(Jobs.class);
			for (int i = 0; i < 10; i++) {
				dispatcher(context).dispatch("takes-300ms", i);
			}
			await().atMost(DEADLINE).until(() -> jobs[0].attempts.size() == 2);
		});
		assertThat(jobs[0].completed).hasSize(2).containsAll(jobs[0].attempts.keySet());
		QueueStats stats = statsAfterClose(redis, "it");
		assertThat(stats.reserved()).isZero();
		assertThat(stats.ready()).isEqualTo(8);
		this.runner.run((context) -> {
			Jobs next = context.getBean(Jobs.class);
			await().atMost(DEADLINE).until(() -> next.completed.size() == 8);
			assertThat(next.attempts.values()).flatMap((attempts) -> attempts)
				.as("jobs prefetched but never started got their attempt back")
				.allSatisfy((attempt) -> assertThat(attempt.context().getAttempt()).isEqualTo(1));
		});
		assertThat(statsAfterClose(redis, "it")).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void prefetchedJobsThatTurnOutSlowAreHandedBackWithTheirAttempt(RedisServer redis) {
		List<String> ids = new ArrayList<>();
		ApplicationContextRunner runner = this.runner.withPropertyValues("redq.listener.shutdown-timeout=200ms");
		runner.withPropertyValues("redq.listener.concurrency=2", "redq.queues.it.prefetch=32").run((context) -> {
			// short jobs first, so that the container reserves ahead at their pace
			List<String> quick = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				quick.add(dispatcher(context).dispatch("greet", new Greeting("quick", i)).id());
			}
			await().atMost(DEADLINE).until(() -> context.getBean(Jobs.class).attempts.keySet().containsAll(quick));
			for (int i = 0; i < 10; i++) {
				ids.add(dispatcher(context).dispatch("takes-forever", "x").id());
			}
			// both workers stay busy past the prefetch horizon: the jobs reserved
			// ahead go back for any instance
			await().atMost(DEADLINE).until(() -> stats(context, "it").equals(new QueueStats(8, 0, 2, 0)));
			assertThat(ids).filteredOn((id) -> !context.getBean(Jobs.class).attempts(id).isEmpty()).hasSize(2);
		});
		assertThat(statsAfterClose(redis, "it")).isEqualTo(new QueueStats(10, 0, 0, 0));
		runner.withPropertyValues("redq.listener.concurrency=10").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			await().atMost(DEADLINE).until(() -> jobs.attempts.size() == 10);
			assertThat(ids).extracting((id) -> jobs.attempts(id).get(0).context().getAttempt())
				.as("the two interrupted jobs used an attempt, the eight prefetched ones did not")
				.containsOnly(1, 2)
				.filteredOn((attempt) -> attempt == 2)
				.hasSize(2);
		});
	}

	@Test
	void jobsThatWouldNotStartSoonStayInRedisForAnyInstance() {
		this.runner.withPropertyValues("redq.listener.concurrency=2", "redq.listener.shutdown-timeout=200ms")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				// jobs of 300 ms: two workers would not start a third within the horizon
				for (int i = 0; i < 4; i++) {
					dispatcher(context).dispatch("takes-300ms", i);
				}
				await().atMost(DEADLINE).until(() -> jobs.completed.size() == 4);
				List<String> ids = new ArrayList<>();
				for (int i = 0; i < 10; i++) {
					ids.add(dispatcher(context).dispatch("takes-forever", "x").id());
				}
				await().atMost(DEADLINE)
					.until(() -> ids.stream().filter((id) -> !jobs.attempts(id).isEmpty()).count() == 2);
				assertThat(stats(context, "it")).isEqualTo(new QueueStats(8, 0, 2, 0));
			});
	}

	@Test
	void shutdownTimeoutInterruptsAndHandsBackJobsAtOnce(RedisServer redis) {
		Jobs[] jobs = new Jobs[1];
		long[] closedIn = new long[1];
		this.runner.withPropertyValues("redq.listener.shutdown-timeout=200ms").run((context) -> {
			jobs[0] = context.getBean(Jobs.class);
			String id = dispatcher(context).dispatch("takes-forever", "x").id();
			jobs[0].awaitAttempts(id, 1);
			closedIn[0] = System.nanoTime();
		});
		assertThat(Duration.ofNanos(System.nanoTime() - closedIn[0])).isLessThan(Duration.ofSeconds(2));
		assertThat(jobs[0].interrupted).hasSize(1);
		assertThat(statsAfterClose(redis, "it")).isEqualTo(new QueueStats(1, 0, 0, 0));
	}

	@Test
	void concurrentDispatchersWithRandomFailuresEndWithEveryJobInOneFinalState() throws Exception {
		// thousands of expected failures would flood the build log
		Logger logger = (Logger) LoggerFactory.getLogger(JobListenerContainer.class);
		Level level = logger.getLevel();
		logger.setLevel(Level.OFF);
		try {
			runStress();
		}
		finally {
			logger.setLevel(level);
		}
	}

	private void runStress() {
		int threads = 8;
		int perThread = 20_000;
		this.runner
			.withPropertyValues("redq.listener.concurrency=16", "redq.listener.batch-size=64",
					"redq.queues.stress.lease-time=10s")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				JobDispatcher dispatcher = dispatcher(context);
				ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
				long start = System.nanoTime();
				List<Thread> producers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					Thread producer = new Thread(() -> {
						for (int i = 0; i < perThread; i++) {
							ids.add(dispatcher.dispatch("flaky", thread * perThread + i).id());
						}
					});
					producer.start();
					producers.add(producer);
				}
				for (Thread producer : producers) {
					producer.join();
				}
				await().atMost(Duration.ofMinutes(2))
					.until(() -> stats(context, "stress").pending() == 0
							&& jobs.completed.size() + stats(context, "stress").dead() == threads * perThread);
				long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				System.out.printf("%d jobs dispatched by %d threads and processed in %d ms (%d jobs/s)%n",
						threads * perThread, threads, millis, threads * perThread * 1000L / Math.max(1, millis));
				List<String> dead = new ArrayList<>(
						template(context).opsForZSet().range(keys(context, "stress").dead(), 0, -1));
				assertThat(ids).hasSize(threads * perThread).doesNotHaveDuplicates();
				assertThat(jobs.completed).doesNotHaveDuplicates().doesNotContainAnyElementsOf(dead);
				List<String> finalStates = new ArrayList<>(jobs.completed);
				finalStates.addAll(dead);
				assertThat(finalStates).containsExactlyInAnyOrderElementsOf(ids);
				assertThat(dead).isNotEmpty();
				assertThat(template(context).opsForHash().size(keys(context, "stress").jobs())).isEqualTo(dead.size());
			});
	}

	private static QueueStats statsAfterClose(RedisServer redis, String queue) {
		String prefix = "redq:{" + queue + "}:";
		return new QueueStats(Long.parseLong(redis.command("LLEN", prefix + "ready")),
				Long.parseLong(redis.command("ZCARD", prefix + "delayed")),
				Long.parseLong(redis.command("ZCOUNT", prefix + "reserved", "-inf", "(inf")),
				Long.parseLong(redis.command("ZCARD", prefix + "dead")));
	}

	private static void awaitQueueEmpty(AssertableApplicationContext context, String queue) {
		await().atMost(DEADLINE).until(() -> stats(context, queue).equals(new QueueStats(0, 0, 0, 0)));
	}

	private static JobDispatcher dispatcher(AssertableApplicationContext context) {
		return context.getBean(JobDispatcher.class);
	}

	private static QueueStats stats(AssertableApplicationContext context, String queue) {
		return context.getBean(JobQueueOperations.class).stats(queue);
	}

	private static QueueKeys keys(AssertableApplicationContext context, String queue) {
		return context.getBean(RedisJobQueueOperations.class).getStore().keys(queue);
	}

	private static StringRedisTemplate template(AssertableApplicationContext context) {
		return new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
	}

	private static Object error(AssertableApplicationContext context, String queue, String id) {
		return template(context).opsForHash().get(keys(context, queue).errors(), id);
	}

	record Greeting(String name, int count) {
	}

	record Attempt(Object payload, JobContext context, Instant startedAt) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		final Map<String, List<Attempt>> attempts = new ConcurrentHashMap<>();

		final ConcurrentLinkedQueue<String> completed = new ConcurrentLinkedQueue<>();

		final List<String> interrupted = new CopyOnWriteArrayList<>();

		final CountDownLatch letGo = new CountDownLatch(1);

		@QueuedJob(name = "greet", queue = "it")
		void greet(Greeting greeting, JobContext context) {
			record(greeting, context);
		}

		@QueuedJob(name = "always-fails", queue = "it", backoff = @io.redq.queue.annotation.Backoff(delay = "100ms"))
		void alwaysFails(String payload, JobContext context) {
			record(payload, context);
			throw new IllegalStateException("failure " + context.getAttempt());
		}

		@QueuedJob(name = "rejects", queue = "it")
		void rejects(String payload, JobContext context) {
			record(payload, context);
			throw new JobRejectedException("not for me");
		}

		@QueuedJob(name = "slow-first-time", queue = "it", timeout = "200ms",
				backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void slowFirstTime(String payload, JobContext context) {
			record(payload, context);
			if (context.getAttempt() == 1) {
				try {
					Thread.sleep(10_000);
				}
				catch (InterruptedException ex) {
					this.interrupted.add(context.getId());
					return;
				}
			}
			this.completed.add(context.getId());
		}

		@QueuedJob(name = "stalls-first-time", queue = "it", timeout = "200ms",
				backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void stallsFirstTime(String payload, JobContext context) {
			record(payload, context);
			if (context.getAttempt() == 1) {
				// ignores interrupts until the second attempt has completed elsewhere
				long deadline = System.nanoTime() + DEADLINE.toNanos();
				while (!this.completed.contains(context.getId() + "#2") && System.nanoTime() < deadline) {
					Thread.interrupted();
					LockSupport.parkNanos(1_000_000);
				}
			}
			this.completed.add(context.getId() + "#" + context.getAttempt());
		}

		@QueuedJob(name = "waits-for-lease-loss", queue = "lease")
		void waitsForLeaseLoss(String payload, JobContext context) {
			record(payload, context);
			if (context.getAttempt() == 1) {
				await().atMost(DEADLINE).until(context::isLeaseLost);
			}
			this.completed.add(context.getId() + "#" + context.getAttempt());
		}

		@QueuedJob(name = "takes-300ms", queue = "it")
		void takes300ms(int payload, JobContext context) throws InterruptedException {
			record(payload, context);
			Thread.sleep(300);
			this.completed.add(context.getId());
		}

		@QueuedJob(name = "takes-forever", queue = "it")
		void takesForever(String payload, JobContext context) {
			record(payload, context);
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				this.interrupted.add(context.getId());
			}
		}

		@QueuedJob(name = "ignores-stop", queue = "it")
		void ignoresStop(String payload, JobContext context) {
			record(payload, context);
			if (context.getAttempt() == 1) {
				while (this.letGo.getCount() > 0) {
					Thread.interrupted();
					LockSupport.parkNanos(1_000_000);
				}
			}
			this.completed.add(context.getId() + "#" + context.getAttempt());
		}

		@QueuedJob(name = "flaky", queue = "stress", maxAttempts = 2,
				backoff = @io.redq.queue.annotation.Backoff(delay = "0"))
		void flaky(int payload, JobContext context) {
			if (ThreadLocalRandom.current().nextInt(10) == 0) {
				throw new IllegalStateException("flaky " + payload);
			}
			this.completed.add(context.getId());
		}

		private void record(Object payload, JobContext context) {
			this.attempts.computeIfAbsent(context.getId(), (id) -> new CopyOnWriteArrayList<>())
				.add(new Attempt(payload, context, Instant.now()));
		}

		List<Attempt> attempts(String id) {
			return this.attempts.getOrDefault(id, List.of());
		}

		List<Attempt> awaitAttempts(String id, int count) {
			await().atMost(DEADLINE).until(() -> attempts(id).size() >= count);
			return attempts(id);
		}

	}

}
