package io.redq.queue.recurring;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link Recurring} jobs and {@link RecurringJobs} against a real Redis, with up
 * to three applications at once. Redis runs on this machine, so its clock (the ticks) and
 * this JVM's clock (the test's instants) agree.
 *
 * @author Redq team
 */
@WithRedis
class RecurringJobsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private static final Duration RATE = Duration.ofMillis(200);

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private final Runs runs = new Runs();

	private final ApplicationContextRunner runner;

	RecurringJobsIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.shutdown-timeout=2s")
			.withBean(Runs.class, () -> this.runs);
	}

	@Test
	void threeApplicationsEnqueueEachTickExactlyOnce() {
		ApplicationContextRunner runner = this.runner.withUserConfiguration(FrequentJobs.class);
		runner.run((first) -> runner.run((second) -> runner.run((third) -> {
			Instant allRunning = Instant.now();
			await().atMost(DEADLINE).untilAsserted(() -> assertConsecutive(ticks("every-200ms", allRunning), RATE, 15));
			await().atMost(DEADLINE)
				.untilAsserted(() -> assertConsecutive(ticks("every-second", allRunning), Duration.ofSeconds(1), 3));
			for (String job : List.of("every-200ms", "every-second")) {
				List<Run> runs = this.runs.of(job);
				assertThat(runs).extracting(Run::tick).as("ticks of %s", job).doesNotHaveDuplicates();
				assertThat(runs).allSatisfy((run) -> {
					assertThat(run.id()).isEqualTo(job + "@" + run.tick().toEpochMilli());
					assertThat(run.createdAt()).as("enqueued on the Redis clock").isAfterOrEqualTo(run.tick());
				});
				assertThat(runs).filteredOn((run) -> run.tick().isAfter(allRunning))
					.extracting(Run::kind)
					.containsOnly("tick");
			}
		})));
	}

	@Test
	void eachTickMeetsTheDispatchInterceptorsAsADispatchDoes() {
		Queue<String> intercepted = new ConcurrentLinkedQueue<>();
		DispatchInterceptor interceptor = new DispatchInterceptor() {

			@Override
			public void beforeDispatch(OutgoingJob job) {
				intercepted.add("before " + job.getId() + " " + job.getHeaders().get(RecurringJobs.RUN_HEADER));
			}

			@Override
			public void afterDispatch(OutgoingJob job) {
				intercepted.add("after " + job.getId());
			}

		};
		this.runner.withUserConfiguration(FrequentJobs.class)
			.withBean(DispatchInterceptor.class, () -> interceptor)
			.run((context) -> {
				await().atMost(DEADLINE).until(() -> this.runs.of("every-200ms").size() >= 3);
				assertThat(this.runs.of("every-200ms")).allSatisfy((run) -> assertThat(intercepted)
					.contains("before " + run.id() + " " + run.kind(), "after " + run.id()));
			});
	}

	@Test
	void missedTicksFollowEachJobsPolicyAfterDowntime() {
		ApplicationContextRunner runner = this.runner.withUserConfiguration(DowntimeJobs.class);
		runner.run((context) -> await().atMost(DEADLINE)
			.until(() -> this.runs.of("run-once").size() >= 2 && this.runs.of("skip").size() >= 2));
		Instant closed = Instant.now();
		// the downtime: no application runs while at least five ticks come due
		await().atMost(DEADLINE).until(() -> Instant.now().isAfter(closed.plus(RATE.multipliedBy(5)).plusMillis(100)));
		Instant restarted = Instant.now();
		runner.run((context) -> {
			await().atMost(DEADLINE).untilAsserted(() -> {
				List<Run> catchUps = runs("run-once", closed, "catch-up");
				assertThat(catchUps).as("catch-up runs").hasSize(1);
				Instant latestMissed = catchUps.get(0).tick();
				assertThat(latestMissed).isAfter(restarted.minus(RATE));
				List<Instant> ticks = new ArrayList<>(List.of(latestMissed));
				ticks.addAll(runs("run-once", closed, "tick").stream().map(Run::tick).sorted().toList());
				assertConsecutive(ticks, RATE, 4);
			});
			await().atMost(DEADLINE).untilAsserted(() -> {
				assertThat(runs("skip", closed, "catch-up")).isEmpty();
				List<Instant> ticks = runs("skip", closed, "tick").stream().map(Run::tick).sorted().toList();
				assertThat(ticks).isNotEmpty();
				assertThat(ticks.get(0)).isAfter(restarted);
				assertConsecutive(ticks, RATE, 4);
			});
			assertThat(runs("run-once", closed, "catch-up")).hasSize(1);
		});
	}

	@Test
	void maxLatenessBelowTheNormalLatenessOfATickIsRejected() {
		this.runner.withUserConfiguration(DowntimeJobs.class)
			.withPropertyValues("redq.recurring.max-lateness=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("redq.recurring.max-lateness must be at least 100ms, as ticks are enqueued a few "
						+ "milliseconds after their time; got PT0S"));
	}

	@Test
	void schedulerThatFallsBehindRunsLateTicksUnlessTooLate(RedisServer redis) {
		this.runner.withUserConfiguration(DowntimeJobs.class)
			// lateness well above the short stall, so that a loaded machine's own delays
			// stay within it
			.withPropertyValues("redq.recurring.max-lateness=2s")
			.run((context) -> {
				await().atMost(DEADLINE).until(() -> this.runs.of("run-once").size() >= 2);
				// Redis answers no client for a while: the scheduler's tick waits for it
				Instant shortStall = Instant.now();
				redis.command("CLIENT", "PAUSE", "400");
				await().atMost(DEADLINE).untilAsserted(() -> {
					List<Run> ticks = runs("run-once", shortStall, "tick");
					assertThat(ticks).as("a tick run late")
						.anySatisfy((run) -> assertThat(run.createdAt()).isAfter(run.tick().plusMillis(150)));
					assertConsecutive(ticks.stream().map(Run::tick).sorted().toList(), RATE, 6);
				});
				assertThat(runs("run-once", shortStall, "catch-up")).isEmpty();
				Instant longStall = Instant.now();
				redis.command("CLIENT", "PAUSE", "3500");
				Instant blocked = Instant.now();
				await().atMost(DEADLINE).untilAsserted(() -> {
					List<Run> catchUps = runs("run-once", longStall, "catch-up");
					assertThat(catchUps).as("catch-up runs").hasSize(1);
					Instant latestMissed = catchUps.get(0).tick();
					assertThat(latestMissed).isAfter(longStall.plusMillis(3000));
					List<Instant> later = runs("run-once", blocked.plus(RATE), "tick").stream()
						.map(Run::tick)
						.sorted()
						.toList();
					assertThat(later).as("ticks after the one it waited for")
						.allSatisfy((tick) -> assertThat(tick).isAfter(latestMissed));
					assertConsecutive(later, RATE, 3);
					assertThat(later.get(0)).isEqualTo(latestMissed.plus(RATE));
				});
				assertThat(runs("skip", longStall, "catch-up")).isEmpty();
				await().atMost(DEADLINE).until(() -> !ticks("skip", blocked.plusMillis(3500)).isEmpty());
			});
	}

	@Test
	void pauseInOneApplicationStopsTicksInEveryApplicationUntilResumed() {
		ApplicationContextRunner runner = this.runner.withUserConfiguration(PausableJobs.class);
		runner.run((first) -> runner.run((second) -> {
			RecurringJobs inFirst = first.getBean(RecurringJobs.class);
			RecurringJobs inSecond = second.getBean(RecurringJobs.class);
			await().atMost(DEADLINE).until(() -> this.runs.of("pausable").size() >= 2);
			assertThat(inFirst.pause("pausable")).isTrue();
			Instant paused = Instant.now();
			assertThat(inFirst.pause("pausable")).as("paused already").isFalse();
			assertThat(inSecond.get("pausable").paused()).isTrue();
			// let at least five ticks come due while paused
			await().atMost(DEADLINE).until(() -> Instant.now().isAfter(paused.plus(RATE.multipliedBy(5))));
			assertThat(ticks("pausable", paused)).isEmpty();
			Instant resumed = Instant.now();
			assertThat(inSecond.resume("pausable")).isTrue();
			assertThat(inSecond.resume("pausable")).as("running already").isFalse();
			assertThat(inFirst.get("pausable").paused()).isFalse();
			await().atMost(DEADLINE).untilAsserted(() -> {
				List<Instant> ticks = ticks("pausable", paused);
				assertThat(ticks).isNotEmpty();
				assertThat(ticks.get(0)).as("first tick after the pause").isAfterOrEqualTo(resumed);
				assertConsecutive(ticks, RATE, 5);
			});
		}));
	}

	@Test
	void triggerEnqueuesARunAtOnceEvenWhenPaused() {
		this.runner.withUserConfiguration(RareJobs.class).run((context) -> {
			RecurringJobs jobs = context.getBean(RecurringJobs.class);
			Instant before = Instant.now();
			String id = jobs.trigger("yearly");
			Run run = this.runs.awaitRun(id);
			assertThat(run.kind()).isEqualTo("trigger");
			assertThat(run.tick()).as("time of the trigger").isBetween(before.minusMillis(100), run.createdAt());
			assertThat(jobs.pause("yearly")).isTrue();
			String second = jobs.trigger("yearly");
			assertThat(this.runs.awaitRun(second).kind()).isEqualTo("trigger");
			assertThat(this.runs.of("yearly")).extracting(Run::id).containsExactlyInAnyOrder(id, second);
			assertThatIllegalArgumentException().isThrownBy(() -> jobs.trigger("daily"))
				.withMessage("No recurring job named 'daily' in this application. "
						+ "Recurring jobs: [hourly, weekday-morning, yearly]");
		});
	}

	@Test
	void listShowsEachJobsScheduleNextTickAndPausedState() {
		this.runner.withUserConfiguration(RareJobs.class).run((context) -> {
			RecurringJobs jobs = context.getBean(RecurringJobs.class);
			assertThat(jobs.pause("hourly")).isTrue();
			Instant now = Instant.now();
			List<RecurringJobInfo> list = jobs.list();
			assertThat(list).extracting(RecurringJobInfo::name).containsExactly("hourly", "weekday-morning", "yearly");
			RecurringJobInfo hourly = list.get(0);
			assertThat(hourly.schedule().getFixedRate()).isEqualTo(Duration.ofHours(1));
			assertThat(hourly.schedule().getZone()).isNull();
			assertThat(hourly.nextTick()).isEqualTo(now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1)));
			assertThat(hourly.paused()).isTrue();
			RecurringJobInfo weekdayMorning = list.get(1);
			assertThat(weekdayMorning.queue()).isEqualTo("rare");
			assertThat(weekdayMorning.schedule().getCron()).isEqualTo("0 0 9 * * MON-FRI");
			assertThat(weekdayMorning.schedule().getZone()).isEqualTo(BERLIN);
			assertThat(weekdayMorning.missedTicks()).isEqualTo(MissedTicks.SKIP);
			assertThat(weekdayMorning.paused()).isFalse();
			ZonedDateTime next = weekdayMorning.nextTick().atZone(BERLIN);
			assertThat(next.toLocalTime()).hasToString("09:00");
			assertThat(next.getDayOfWeek()).isNotIn(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY);
			assertThat(weekdayMorning.nextTick())
				.isEqualTo(CronExpression.parse("0 0 9 * * MON-FRI").next(now.atZone(BERLIN)).toInstant());
			assertThat(jobs.get("yearly").schedule().getZone()).as("redq.recurring.zone").isEqualTo(ZoneId.of("UTC"));
		});
	}

	@Test
	void defaultZoneIsConfigurable() {
		this.runner.withUserConfiguration(RareJobs.class)
			.withPropertyValues("redq.recurring.zone=America/New_York")
			.run((context) -> assertThat(context.getBean(RecurringJobs.class).get("yearly").schedule().getZone())
				.isEqualTo(ZoneId.of("America/New_York")));
	}

	@Test
	void disabledRecurringJobsRunOnlyWhenDispatched() {
		this.runner.withUserConfiguration(FrequentJobs.class)
			.withPropertyValues("redq.recurring.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RecurringJobs.class).doesNotHaveBean("jobQueueRecurringTickScript");
				Instant started = Instant.now();
				String id = context.getBean(JobDispatcher.class)
					.dispatch("every-200ms", Instant.parse("2025-01-01T00:00:00Z"))
					.id();
				this.runs.awaitRun(id);
				// let at least five ticks come due
				await().atMost(DEADLINE).until(() -> Instant.now().isAfter(started.plus(RATE.multipliedBy(5))));
				assertThat(this.runs.of("every-200ms")).extracting(Run::id).containsExactly(id);
			});
	}

	private List<Instant> ticks(String job, Instant after) {
		return this.runs.of(job).stream().map(Run::tick).filter((tick) -> tick.isAfter(after)).sorted().toList();
	}

	private List<Run> runs(String job, Instant after, String kind) {
		return this.runs.of(job)
			.stream()
			.filter((run) -> run.tick().isAfter(after) && run.kind().equals(kind))
			.toList();
	}

	/**
	 * Assert that the first {@code count} ticks follow each other at the given rate: no
	 * gaps and no duplicates.
	 */
	private static void assertConsecutive(List<Instant> ticks, Duration rate, int count) {
		assertThat(ticks).as("ticks").hasSizeGreaterThanOrEqualTo(count);
		List<Instant> expected = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			expected.add(ticks.get(0).plus(rate.multipliedBy(i)));
		}
		assertThat(ticks.subList(0, count)).as("consecutive ticks").isEqualTo(expected);
	}

	record Run(String job, String id, Instant tick, String kind, Instant createdAt) {
	}

	/**
	 * The runs of every application's jobs.
	 */
	static class Runs {

		private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

		void record(@Nullable Instant tick, JobContext context) {
			this.runs.add(new Run(context.getJobName(), context.getId(), tick,
					context.getHeaders().getOrDefault(RecurringJobs.RUN_HEADER, "none"), context.getCreatedAt()));
		}

		List<Run> of(String job) {
			return this.runs.stream().filter((run) -> run.job().equals(job)).toList();
		}

		Run awaitRun(String id) {
			await().atMost(DEADLINE).until(() -> this.runs.stream().anyMatch((run) -> run.id().equals(id)));
			return this.runs.stream().filter((run) -> run.id().equals(id)).findFirst().orElseThrow();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FrequentJobs {

		private final Runs runs;

		FrequentJobs(Runs runs) {
			this.runs = runs;
		}

		@QueuedJob(name = "every-200ms", queue = "recurring")
		@Recurring(fixedRate = "200ms")
		void every200ms(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

		@QueuedJob(name = "every-second", queue = "recurring")
		@Recurring(cron = "* * * * * *", zone = "Europe/Berlin")
		void everySecond(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DowntimeJobs {

		private final Runs runs;

		DowntimeJobs(Runs runs) {
			this.runs = runs;
		}

		@QueuedJob(name = "run-once", queue = "downtime")
		@Recurring(fixedRate = "200ms", missedTicks = MissedTicks.RUN_ONCE)
		void runOnce(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

		@QueuedJob(name = "skip", queue = "downtime")
		@Recurring(fixedRate = "200ms", missedTicks = MissedTicks.SKIP)
		void skip(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PausableJobs {

		private final Runs runs;

		PausableJobs(Runs runs) {
			this.runs = runs;
		}

		@QueuedJob(name = "pausable", queue = "pausable")
		@Recurring(fixedRate = "200ms")
		void pausable(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RareJobs {

		private final Runs runs;

		RareJobs(Runs runs) {
			this.runs = runs;
		}

		@QueuedJob(name = "yearly", queue = "rare")
		@Recurring(cron = "@yearly")
		void yearly(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

		@QueuedJob(name = "weekday-morning", queue = "rare")
		@Recurring(cron = "0 0 9 * * MON-FRI", zone = "Europe/Berlin", missedTicks = MissedTicks.SKIP)
		void weekdayMorning(JobContext context) {
			this.runs.record(null, context);
		}

		@QueuedJob(name = "hourly", queue = "rare")
		@Recurring(fixedRate = "1h")
		void hourly(Instant tick, JobContext context) {
			this.runs.record(tick, context);
		}

	}

}
