package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.ScriptExecutions;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for exclusive jobs, running limits and rate limits across application instances,
 * against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class JobLimitsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner;

	JobLimitsIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.concurrency=8", "redq.queues.capped.max-running=3",
					"redq.queues.tenants.group-max-running=2")
			.withUserConfiguration(LimitedJobs.class);
	}

	@BeforeEach
	void resetJobs() {
		LimitedJobs.reset();
	}

	@Test
	void exclusiveJobsWithTheSameKeyNeverOverlapAcrossInstancesAndAllRun() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 60; i++) {
				ids.add(dispatcher((i % 2 == 0) ? first : second).dispatch("ship-order", new Order(i % 3, i)).id());
			}
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == ids.size());
			assertThat(LimitedJobs.completed).containsExactlyInAnyOrderElementsOf(ids);
			assertThat(LimitedJobs.overlaps.get()).isZero();
			assertThat(LimitedJobs.maxRunning.get()).as("different keys run in parallel").isGreaterThan(1);
			assertThat(stats(first, "orders")).isEqualTo(new QueueStats(0, 0, 0, 0));
			assertThat(LimitedJobs.attempts.values()).as("waiting is not a failed attempt").containsOnly(1);
		}));
	}

	@Test
	void jobsWaitingForAnExclusiveKeyAreAdmittedWhenItIsFreedNotByPolling(RedisServer redis) {
		this.runner.run((context) -> {
			int jobs = 20;
			long getsBefore = keyReads(redis);
			for (int i = 0; i < jobs; i++) {
				dispatcher(context).dispatch("ship-order", new Order(1, i));
			}
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == jobs);
			assertThat(LimitedJobs.overlaps.get()).isZero();
			// each admission and each leave reads the key once; woken by the run before
			// it, a job is admitted about twice (retried every 100 ms instead, these 20
			// jobs took over 200 admissions); each dispatch reads its own key once
			assertThat(keyReads(redis) - getsBefore - jobs).isLessThan(4L * jobs);
		});
	}

	@Test
	void jobsParkedBehindAHolderCostNoAdmissionWhileTheyWaitAndRunOneByOneOnceItLeaves(RedisServer redis) {
		this.runner.run((context) -> {
			int waiting = 200;
			dispatcher(context).dispatch("hold-line", 0);
			await().atMost(DEADLINE).until(() -> LimitedJobs.running.get() == 1);
			for (int i = 1; i <= waiting; i++) {
				dispatcher(context).dispatch("hold-line", i);
			}
			await().atMost(DEADLINE).until(() -> stats(context, "lines").equals(new QueueStats(0, waiting, 1, 0)));
			// each admission reads its running set's entries once (ZREMRANGEBYSCORE); a
			// job that came back every second to be admitted again would add 200 a second
			long admissionsBefore = admissions(redis);
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(admissions(redis) - admissionsBefore)
					.as("admissions while %d jobs waited", waiting)
					.isLessThan(10));
			assertThat(stats(context, "lines")).isEqualTo(new QueueStats(0, waiting, 1, 0));
			long reservationsBefore = reservations(redis);
			long callsBefore = ScriptExecutions.count(redis);
			LimitedJobs.holding.countDown();
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == waiting + 1);
			// each run that leaves lets the job it hands over through their gates and is
			// acknowledged in the same call: one call per job (with an acknowledgement of
			// its own, about 370; with an admission too, about 590)
			assertThat(ScriptExecutions.count(redis) - callsBefore).as("script calls while the line drained")
				.isLessThan(5L * waiting / 4);
			// each run that leaves takes the next in line for a worker of its container:
			// the drain needs no reservation per job (one wake-up and reservation each,
			// it
			// took over 400)
			assertThat(reservations(redis) - reservationsBefore).as("reservations while the line drained")
				.isLessThan(waiting / 4);
			assertThat(LimitedJobs.maxRunning.get()).as("runs at once, with 8 workers").isOne();
			assertThat(LimitedJobs.attempts.values()).as("waiting is not a failed attempt").containsOnly(1);
			assertThat(stats(context, "lines")).isEqualTo(new QueueStats(0, 0, 0, 0));
		});
	}

	@Test
	void runningLimitsHoldAcrossInstances() {
		this.runner.run((first) -> this.runner.run((second) -> {
			for (int i = 0; i < 40; i++) {
				dispatcher((i % 2 == 0) ? first : second).dispatch("call-partner-api", i);
				dispatcher((i % 2 == 0) ? first : second).dispatch("capped-work", i);
			}
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == 80);
			assertThat(LimitedJobs.maxRunningByJob.get("call-partner-api")).isEqualTo(2);
			assertThat(LimitedJobs.maxRunningByJob.get("capped-work")).isEqualTo(3);
			assertThat(LimitedJobs.attempts.values()).containsOnly(1);
		}));
	}

	@Test
	void groupRunningLimitHoldsAcrossInstancesWhileOtherGroupsAndUngroupedJobsRun() {
		this.runner.run((first) -> this.runner.run((second) -> {
			for (int i = 0; i < 30; i++) {
				for (String group : List.of("acme", "globex")) {
					dispatcher((i % 2 == 0) ? first : second)
						.dispatch(JobRequest.of("tenant-work", group + "-" + i).group(group).build());
				}
				dispatcher((i % 2 == 0) ? first : second).dispatch("tenant-work", "none-" + i);
			}
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == 90);
			assertThat(LimitedJobs.maxRunningByGroup).containsEntry("acme", 2).containsEntry("globex", 2);
			assertThat(LimitedJobs.maxRunningByGroup.get("none")).as("jobs in no group are not limited")
				.isGreaterThan(2);
			assertThat(LimitedJobs.attempts.values()).as("waiting is not a failed attempt").containsOnly(1);
		}));
	}

	@Test
	void rateLimitHoldsWithinEverySlidingWindow() {
		this.runner.run((first) -> this.runner.run((second) -> {
			for (int i = 0; i < 25; i++) {
				dispatcher((i % 2 == 0) ? first : second).dispatch("send-sms", i);
			}
			await().atMost(DEADLINE).until(() -> LimitedJobs.completed.size() == 25);
			List<Instant> starts = new ArrayList<>(LimitedJobs.starts.get("send-sms"));
			starts.sort(null);
			for (int i = 10; i < starts.size(); i++) {
				// the 11th start after any start is one window (500 ms) later; the window
				// is enforced when Redis admits
				// a job, and the handler starts a few milliseconds after that
				assertThat(Duration.between(starts.get(i - 10), starts.get(i)))
					.isGreaterThanOrEqualTo(Duration.ofMillis(480));
			}
			assertThat(LimitedJobs.attempts.values()).containsOnly(1);
		}));
	}

	private static JobDispatcher dispatcher(AssertableApplicationContext context) {
		return context.getBean(JobDispatcher.class);
	}

	private static QueueStats stats(AssertableApplicationContext context, String queue) {
		return context.getBean(JobQueueOperations.class).stats(queue);
	}

	/**
	 * Return the {@code ZREMRANGEBYSCORE}s Redis ran: one per admission past a running
	 * limit, and one per instance heartbeat.
	 */
	private static long admissions(RedisServer redis) {
		return ScriptExecutions.calls(redis, "zremrangebyscore");
	}

	/**
	 * Return the {@code LPOP}s Redis ran: one per reservation of a queue without priority
	 * levels or groups.
	 */
	private static long reservations(RedisServer redis) {
		return ScriptExecutions.calls(redis, "lpop");
	}

	/**
	 * Return the {@code GET}s Redis ran but the data model check each script starts with.
	 */
	private static long keyReads(RedisServer redis) {
		return ScriptExecutions.calls(redis, "get") - ScriptExecutions.count(redis);
	}

	record Order(int customer, int number) {
	}

	@Configuration(proxyBeanMethods = false)
	static class LimitedJobs {

		// shared by the two application contexts of a test, as if in one database
		static final ConcurrentLinkedQueue<String> completed = new ConcurrentLinkedQueue<>();

		static final Map<String, Integer> attempts = new ConcurrentHashMap<>();

		static final Map<Integer, AtomicInteger> runningByKey = new ConcurrentHashMap<>();

		static final Map<String, AtomicInteger> runningByJob = new ConcurrentHashMap<>();

		static final Map<String, Integer> maxRunningByJob = new ConcurrentHashMap<>();

		static final Map<String, AtomicInteger> runningByGroup = new ConcurrentHashMap<>();

		static final Map<String, Integer> maxRunningByGroup = new ConcurrentHashMap<>();

		static final Map<String, ConcurrentLinkedQueue<Instant>> starts = new ConcurrentHashMap<>();

		static final AtomicInteger overlaps = new AtomicInteger();

		static final AtomicInteger running = new AtomicInteger();

		static final AtomicInteger maxRunning = new AtomicInteger();

		static CountDownLatch holding = new CountDownLatch(1);

		static void reset() {
			holding = new CountDownLatch(1);
			completed.clear();
			attempts.clear();
			runningByKey.clear();
			runningByJob.clear();
			maxRunningByJob.clear();
			runningByGroup.clear();
			maxRunningByGroup.clear();
			starts.clear();
			overlaps.set(0);
			running.set(0);
			maxRunning.set(0);
		}

		@QueuedJob(name = "ship-order", queue = "orders", exclusiveKey = "customer()")
		void shipOrder(Order order, JobContext context) throws InterruptedException {
			AtomicInteger sameKey = runningByKey.computeIfAbsent(order.customer(), (key) -> new AtomicInteger());
			if (sameKey.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
			Thread.sleep(20);
			running.decrementAndGet();
			sameKey.decrementAndGet();
			finish(context);
		}

		@QueuedJob(name = "hold-line", queue = "lines", maxRunning = "1")
		void holdLine(int number, JobContext context) throws InterruptedException {
			maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
			holding.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
			running.decrementAndGet();
			finish(context);
		}

		@QueuedJob(name = "call-partner-api", queue = "partners", maxRunning = "2")
		void callPartnerApi(int request, JobContext context) throws InterruptedException {
			runLimited(context);
		}

		@QueuedJob(name = "capped-work", queue = "capped")
		void cappedWork(int request, JobContext context) throws InterruptedException {
			runLimited(context);
		}

		@QueuedJob(name = "tenant-work", queue = "tenants")
		void tenantWork(String task, JobContext context) throws InterruptedException {
			String group = task.substring(0, task.indexOf('-'));
			AtomicInteger count = runningByGroup.computeIfAbsent(group, (key) -> new AtomicInteger());
			maxRunningByGroup.merge(group, count.incrementAndGet(), Math::max);
			Thread.sleep(30);
			count.decrementAndGet();
			finish(context);
		}

		@QueuedJob(name = "send-sms", queue = "sms", rateLimit = "10/500ms")
		void sendSms(int message, JobContext context) {
			starts.computeIfAbsent(context.getJobName(), (job) -> new ConcurrentLinkedQueue<>()).add(Instant.now());
			finish(context);
		}

		private static void runLimited(JobContext context) throws InterruptedException {
			AtomicInteger count = runningByJob.computeIfAbsent(context.getJobName(), (job) -> new AtomicInteger());
			maxRunningByJob.merge(context.getJobName(), count.incrementAndGet(), Math::max);
			Thread.sleep(30);
			count.decrementAndGet();
			finish(context);
		}

		private static void finish(JobContext context) {
			attempts.put(context.getId(), context.getAttempt());
			completed.add(context.getId());
		}

	}

}
