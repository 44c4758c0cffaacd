package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.Timer;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for timers, debounced jobs and uniqueness while a job runs, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class TimersIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner;

	TimersIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.concurrency=16")
			.withUserConfiguration(TimerJobs.class);
	}

	@BeforeEach
	void resetJobs() {
		TimerJobs.reset();
	}

	@Test
	void timerFiresAtItsTimeAndCanBeFoundAndCancelled() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = dispatcher(context);
			Instant at = Instant.now().plusMillis(400);
			assertThat(dispatcher.schedule("close-auction", 42L, at))
				.isEqualTo(new DispatchResult("close-auction:42", Outcome.CREATED));
			Timer timer = dispatcher.findTimer("close-auction", 42L).orElseThrow();
			assertThat(timer.dueAt()).isEqualTo(at.truncatedTo(ChronoUnit.MILLIS));
			assertThat(timer.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(400));
			dispatcher.schedule("close-auction", 43L, Instant.now().plusSeconds(60));
			assertThat(dispatcher.cancelTimer("close-auction", 43L)).isTrue();
			assertThat(dispatcher.findTimer("close-auction", 43L)).isEmpty();
			Fired fired = TimerJobs.awaitFired("close-auction:42", 1).get(0);
			// never early; how late is the timers benchmark's figure, not a test's
			assertThat(fired.startedAt()).isAfterOrEqualTo(timer.dueAt());
			assertThat(fired.payload()).isEqualTo(42L);
			await().atMost(DEADLINE).until(() -> stats(context).equals(new QueueStats(0, 0, 0, 0)));
			assertThat(dispatcher.findTimer("close-auction", 42L)).isEmpty();
			assertThat(TimerJobs.fired).doesNotContainKey("close-auction:43");
		});
	}

	@Test
	void concurrentReschedulesRacingTheMigratorFireEachTimerOnceAtItsFinalTime() throws Exception {
		int timers = 1000;
		this.runner.run((context) -> {
			JobDispatcher dispatcher = dispatcher(context);
			Map<Long, Instant> finalTimes = new ConcurrentHashMap<>();
			Instant start = Instant.now();
			List<JobRequest> requests = new ArrayList<>();
			for (long key = 0; key < timers; key++) {
				// far enough ahead that a slow first dispatchAll is not late for it
				Instant at = start.plusMillis(700 + key % 300);
				// what schedule("close-auction", key, at) does, in one round trip
				requests.add(JobRequest.of("close-auction", key)
					.id("close-auction:" + key, DuplicatePolicy.REPLACE)
					.at(at)
					.build());
				finalTimes.put(key, at);
			}
			dispatcher.dispatchAll(requests);
			CountDownLatch done = new CountDownLatch(8);
			for (int t = 0; t < 8; t++) {
				new Thread(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					Instant until = Instant.now().plusSeconds(1);
					while (Instant.now().isBefore(until)) {
						long key = random.nextLong(timers);
						// one thread at a time per key, so that the last successful
						// reschedule is known
						synchronized (finalTimes) {
							Instant at = Instant.now().plusMillis(200 + random.nextInt(1000));
							if (dispatcher.reschedule("close-auction", key, at)) {
								finalTimes.put(key, at);
							}
						}
					}
					done.countDown();
				}).start();
			}
			done.await();
			await().atMost(DEADLINE)
				.until(() -> TimerJobs.fired.size() == timers && stats(context).equals(new QueueStats(0, 0, 0, 0)));
			for (long key = 0; key < timers; key++) {
				List<Fired> fired = new ArrayList<>(TimerJobs.fired.get("close-auction:" + key));
				assertThat(fired).as("runs of timer %d", key).hasSize(1);
				Instant due = finalTimes.get(key).truncatedTo(ChronoUnit.MILLIS);
				// a due time already past when Redis ran the reschedule (a stalled
				// caller) counts from then
				assertThat(fired.get(0).context().getAvailableAt()).as("due time of timer %d", key)
					.isBetween(due, due.plusMillis(100));
				assertThat(fired.get(0).startedAt()).as("start of timer %d", key).isAfterOrEqualTo(due);
			}
		});
	}

	@Test
	void timersDueWhileNoApplicationRanFireOnceWhenOneStarts() {
		List<Instant> dueTimes = new ArrayList<>();
		this.runner.withPropertyValues("redq.listener.auto-startup=false").run((context) -> {
			for (long key = 0; key < 100; key++) {
				Instant at = Instant.now().plusMillis(100);
				dispatcher(context).schedule("close-auction", key, at);
				dueTimes.add(at);
			}
		});
		Instant lastDue = dueTimes.get(dueTimes.size() - 1);
		await().atMost(DEADLINE).until(() -> Instant.now().isAfter(lastDue.plusMillis(300)));
		assertThat(TimerJobs.fired).isEmpty();
		this.runner.run((first) -> this.runner.run((second) -> {
			await().atMost(DEADLINE).until(() -> TimerJobs.fired.size() == 100);
			await().atMost(DEADLINE).until(() -> stats(first).equals(new QueueStats(0, 0, 0, 0)));
			assertThat(TimerJobs.fired.values()).allSatisfy((fired) -> assertThat(fired).hasSize(1));
		}));
	}

	@Test
	void debouncedDispatchesCollapseIntoOneRunWithTheLastPayload() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = dispatcher(context);
			Instant first = Instant.now();
			for (int edit = 1; edit <= 50; edit++) {
				dispatcher.dispatch(JobRequest.of("reindex-product", edit)
					.debounce("reindex-product-5", Duration.ofMillis(500))
					.build());
			}
			List<Fired> fired = TimerJobs.awaitFired("reindex-product-5", 1);
			assertThat(fired.get(0).payload()).isEqualTo(50);
			assertThat(fired.get(0).startedAt()).isAfterOrEqualTo(first.plusMillis(500));
			await().atMost(DEADLINE).until(() -> stats(context, "index").equals(new QueueStats(0, 0, 0, 0)));
			assertThat(TimerJobs.fired.get("reindex-product-5")).hasSize(1);
		});
	}

	@Test
	void dispatchWhileTheJobRunsIsDroppedOrQueuedAsConfigured() {
		this.runner.run((context) -> {
			JobDispatcher dispatcher = dispatcher(context);
			dispatcher.dispatch(JobRequest.of("export", "first").id("export-7").build());
			TimerJobs.awaitFired("export-7", 1);
			assertThat(dispatcher.dispatch(JobRequest.of("export", "dropped").id("export-7").build()).outcome())
				.isEqualTo(Outcome.DROPPED);
			assertThat(dispatcher
				.dispatch(JobRequest.of("export", "queued").id("export-7").unique(Uniqueness.UNTIL_STARTED).build())
				.outcome()).isEqualTo(Outcome.QUEUED);
			TimerJobs.release.countDown();
			List<Fired> fired = TimerJobs.awaitFired("export-7", 2);
			assertThat(fired).extracting(Fired::payload).containsExactly("first", "queued");
			await().atMost(DEADLINE).until(() -> stats(context, "exports").equals(new QueueStats(0, 0, 0, 0)));
			assertThat(TimerJobs.fired.get("export-7")).hasSize(2);
		});
	}

	private static JobDispatcher dispatcher(AssertableApplicationContext context) {
		return context.getBean(JobDispatcher.class);
	}

	private static QueueStats stats(AssertableApplicationContext context) {
		return stats(context, "auctions");
	}

	private static QueueStats stats(AssertableApplicationContext context, String queue) {
		return context.getBean(JobQueueOperations.class).stats(queue);
	}

	record Fired(Object payload, JobContext context, Instant startedAt) {
	}

	@Configuration(proxyBeanMethods = false)
	static class TimerJobs {

		// shared by the application contexts of a test
		static final Map<String, ConcurrentLinkedQueue<Fired>> fired = new ConcurrentHashMap<>();

		static volatile CountDownLatch release = new CountDownLatch(1);

		static void reset() {
			fired.clear();
			release = new CountDownLatch(1);
		}

		static List<Fired> awaitFired(String id, int count) {
			await().atMost(DEADLINE).until(() -> fired.containsKey(id) && fired.get(id).size() >= count);
			return new ArrayList<>(fired.get(id));
		}

		@QueuedJob(name = "close-auction", queue = "auctions")
		void closeAuction(long auctionId, JobContext context) {
			record(auctionId, context);
		}

		@QueuedJob(name = "reindex-product", queue = "index")
		void reindexProduct(int edit, JobContext context) {
			record(edit, context);
		}

		@QueuedJob(name = "export", queue = "exports")
		void export(String what, JobContext context) throws InterruptedException {
			record(what, context);
			release.await();
		}

		private static void record(Object payload, JobContext context) {
			fired.computeIfAbsent(context.getId(), (id) -> new ConcurrentLinkedQueue<>())
				.add(new Fired(payload, context, Instant.now()));
		}

	}

}
