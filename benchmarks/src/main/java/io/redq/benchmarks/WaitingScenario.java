package io.redq.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code waiting}: one job holds the only place of a job with {@code maxRunning = 1}
 * while N more of it (N = 100,000) wait behind it; Redis's CPU and calls per second are
 * measured over {@code --duration} (10 s) once they all wait (or after 90 s, as jobs that
 * keep coming back never all do), then the holder leaves and the jobs that complete until
 * all did, or for at most {@code --drain} (10 s), give the drain rate.
 *
 * @author Redq team
 * @since 0.1.0
 */
class WaitingScenario implements Scenario {

	private static final String JOB = "gated";

	/** How long the jobs may take to be delayed before the measurement starts anyway. */
	private static final Duration SETTLE = Duration.ofSeconds(90);

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(100_000);
		Duration duration = harness.options().duration("duration", Duration.ofSeconds(10));
		Duration drain = harness.options().duration("drain", Duration.ofSeconds(10));
		GatedJobs.reset();
		try (ConfigurableApplicationContext context = harness.start(GatedJobs.class)) {
			harness.describe(context, result);
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			dispatcher.dispatch(JobRequest.of(JOB, "holder").build());
			await(() -> GatedJobs.started.get() == 1, "the holder to start");
			harness.dispatchBatches(dispatcher, jobs, (i) -> JobRequest.of(JOB, Integer.toString(i)).build());
			// waiting jobs are delayed: parked, or deferred by a recheck before parking,
			// where they keep coming back and some are always ready or reserved
			long settled = System.nanoTime() + SETTLE.toNanos();
			while (operations.stats(BenchmarkConfiguration.QUEUE).delayed() < jobs && System.nanoTime() < settled) {
				Thread.sleep(10);
			}
			result.put("delayedAtStart", operations.stats(BenchmarkConfiguration.QUEUE).delayed());
			RedisStats before = RedisStats.take(harness.redis());
			Thread.sleep(duration.toMillis());
			RedisStats waiting = RedisStats.take(harness.redis()).since(before);
			double seconds = waiting.seconds();
			result.put("jobs", jobs);
			result.put("waitingRedisCpuPercent", 100 * waiting.cpuSeconds() / seconds);
			result.put("waitingScriptCallsPerSecond", waiting.scriptCalls() / seconds);
			result.put("waitingCommandsPerSecond", waiting.total() / seconds);
			result.put("waitingCommandCallsPerSecond", Result.perUnit(waiting, seconds));
			RedisStats beforeDrain = RedisStats.take(harness.redis());
			long drainStart = System.nanoTime();
			long drainEnd = drainStart + drain.toNanos();
			GatedJobs.holding.countDown();
			while (GatedJobs.completed.get() <= jobs && System.nanoTime() < drainEnd) {
				Thread.sleep(1);
			}
			int drained = GatedJobs.completed.get() - 1;
			double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
			RedisStats draining = RedisStats.take(harness.redis()).since(beforeDrain);
			result.put("drained", drained);
			result.put("drainJobsPerSecond", drained / drainSeconds);
			// what each job of the drain costs Redis: more trustworthy than its rate on a
			// shared machine
			double each = Math.max(1, drained);
			result.put("drainScriptCallsPerJob", draining.scriptCalls() / each);
			result.put("drainCommandsPerJob", draining.total() / each);
			result.put("drainRoundTripsPerJob", draining.roundTrips() / each);
			result.put("drainRedisMicrosPerJob", 1e6 * draining.cpuSeconds() / each);
			harness.log(String.format("waiting: %.1f %% Redis CPU, %.0f script calls/s; drain %.0f jobs/s",
					100 * waiting.cpuSeconds() / seconds, waiting.scriptCalls() / seconds, drained / drainSeconds));
			Harness.stopContainers(context);
		}
	}

	private static void await(BooleanSupplier condition, String what) throws InterruptedException {
		long deadline = System.nanoTime() + Harness.TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out waiting for " + what);
			}
			Thread.sleep(10);
		}
	}

	/**
	 * The gated job: one runs at a time; the first holds its place until the scenario
	 * lets it go.
	 */
	static class GatedJobs {

		static final AtomicInteger started = new AtomicInteger();

		static final AtomicInteger completed = new AtomicInteger();

		static CountDownLatch holding = new CountDownLatch(1);

		static void reset() {
			started.set(0);
			completed.set(0);
			holding = new CountDownLatch(1);
		}

		@QueuedJob(name = JOB, queue = BenchmarkConfiguration.QUEUE, maxRunning = "1")
		void gated(String payload, JobContext context) throws InterruptedException {
			started.incrementAndGet();
			if (payload.equals("holder")) {
				holding.await(Harness.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
			completed.incrementAndGet();
		}

	}

}
