package io.redq.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobListenerContainer;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code waiting}: one job holds the only place of a job with {@code maxRunning = 1}
 * while N more of it (N = 100,000) wait behind it; Redis's CPU and calls per second are
 * measured over {@code --duration} (10 s) once they all wait (or after 90 s, as jobs that
 * keep coming back never all do), then the holder leaves and the jobs that complete until
 * all did, or for at most {@code --drain} (10 s), give the drain rate. Beside it, as a
 * control in the same minutes, the same number of the same jobs without a limit drained
 * by one worker ({@code unlimitedDrain...}, {@code drainToUnlimited}). Warm-up rounds of
 * both drains (up to 10,000 jobs each) come first, as in {@code drain}.
 *
 * @author Redq team
 * @since 0.1.0
 */
class WaitingScenario implements Scenario {

	private static final String JOB = "gated";

	/** The same job without a limit, on a queue of its own with one worker. */
	private static final String CONTROL_JOB = "free";

	private static final String CONTROL_QUEUE = "bench-free";

	/** The most jobs a warm-up round drains, limited and then unlimited. */
	private static final int WARMUP_JOBS = 10_000;

	/** How long the jobs may take to be delayed before the measurement starts anyway. */
	private static final Duration SETTLE = Duration.ofSeconds(90);

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(100_000);
		Duration duration = harness.options().duration("duration", Duration.ofSeconds(10));
		Duration drain = harness.options().duration("drain", Duration.ofSeconds(10));
		GatedJobs.reset();
		try (ConfigurableApplicationContext context = harness.start(GatedJobs.class,
				"redq.queues." + CONTROL_QUEUE + ".concurrency=1")) {
			harness.describe(context, result);
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			JobListenerContainer control = context.getBean(JobListenerRegistry.class)
				.getListenerContainers()
				.stream()
				.filter((container) -> container.getQueue().equals(CONTROL_QUEUE))
				.findFirst()
				.orElseThrow();
			// the measured drains run compiled code, as the drain scenario's do
			int warmupJobs = Math.min(jobs, WARMUP_JOBS);
			harness.warmUp(result, () -> {
				hold(harness, dispatcher, operations, warmupJobs);
				// whole, so that no job of a round is left for the next
				drainGated(warmupJobs, Harness.TIMEOUT);
				stageUnlimited(harness, dispatcher, control, warmupJobs);
				drainUnlimited(control, warmupJobs, Harness.TIMEOUT);
			});
			hold(harness, dispatcher, operations, jobs);
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
			double drainRate = drainGated(jobs, drain);
			RedisStats draining = RedisStats.take(harness.redis()).since(beforeDrain);
			int drained = GatedJobs.completed.get() - 1;
			result.put("drained", drained);
			result.put("drainJobsPerSecond", drainRate);
			// what each job of the drain costs Redis: more trustworthy than its rate on a
			// shared machine
			double each = Math.max(1, drained);
			result.put("drainScriptCallsPerJob", draining.scriptCalls() / each);
			result.put("drainCommandsPerJob", draining.total() / each);
			result.put("drainRoundTripsPerJob", draining.roundTrips() / each);
			result.put("drainRedisMicrosPerJob", 1e6 * draining.cpuSeconds() / each);
			result.put("drainCommandCallsPerJob", Result.perUnit(draining, each));
			result.put("drainCommandMicrosPerJob", Result.microsPerUnit(draining, each));
			// the control: the same number of the same jobs without a limit, one worker
			stageUnlimited(harness, dispatcher, control, jobs);
			RedisStats beforeUnlimited = RedisStats.take(harness.redis());
			double unlimitedRate = drainUnlimited(control, jobs, drain);
			RedisStats unlimited = RedisStats.take(harness.redis()).since(beforeUnlimited);
			double unlimitedEach = Math.max(1, GatedJobs.unlimited.get());
			result.put("unlimitedDrainJobsPerSecond", unlimitedRate);
			result.put("unlimitedDrainCommandsPerJob", unlimited.total() / unlimitedEach);
			result.put("unlimitedDrainRedisMicrosPerJob", 1e6 * unlimited.cpuSeconds() / unlimitedEach);
			result.put("unlimitedDrainCommandCallsPerJob", Result.perUnit(unlimited, unlimitedEach));
			result.put("unlimitedDrainCommandMicrosPerJob", Result.microsPerUnit(unlimited, unlimitedEach));
			result.put("drainToUnlimited", drainRate / unlimitedRate);
			harness.log(String.format(
					"waiting: %.1f %% Redis CPU, %.0f script calls/s; drain %.0f jobs/s, unlimited %.0f jobs/s",
					100 * waiting.cpuSeconds() / seconds, waiting.scriptCalls() / seconds, drainRate, unlimitedRate));
			Harness.stopContainers(context);
		}
	}

	/**
	 * Start a holder of the gated job's only place and dispatch N more behind it; return
	 * once they all wait (or after {@link #SETTLE}).
	 */
	private static void hold(Harness harness, JobDispatcher dispatcher, JobQueueOperations operations, int jobs)
			throws Exception {
		GatedJobs.reset();
		dispatcher.dispatch(JobRequest.of(JOB, "holder").build());
		await(() -> GatedJobs.started.get() == 1, "the holder to start");
		harness.dispatchBatches(dispatcher, jobs, (i) -> JobRequest.of(JOB, Integer.toString(i)).build());
		// waiting jobs are delayed: parked, or deferred by a recheck before parking,
		// where they keep coming back and some are always ready or reserved
		long settled = System.nanoTime() + SETTLE.toNanos();
		while (operations.stats(BenchmarkConfiguration.QUEUE).delayed() < jobs && System.nanoTime() < settled) {
			Thread.sleep(10);
		}
	}

	/**
	 * Let the holder go and wait until the N jobs behind it completed, or for at most the
	 * drain's time; return the jobs per second.
	 */
	private static double drainGated(int jobs, Duration drain) throws InterruptedException {
		long drainStart = System.nanoTime();
		long drainEnd = drainStart + drain.toNanos();
		GatedJobs.holding.countDown();
		while (GatedJobs.completed.get() <= jobs && System.nanoTime() < drainEnd) {
			Thread.sleep(1);
		}
		return (GatedJobs.completed.get() - 1) / ((System.nanoTime() - drainStart) / 1e9);
	}

	/**
	 * Dispatch N of the same jobs without a limit while the control queue's one worker is
	 * stopped.
	 */
	private static void stageUnlimited(Harness harness, JobDispatcher dispatcher, JobListenerContainer control,
			int jobs) throws Exception {
		control.stop();
		GatedJobs.unlimited.set(0);
		harness.dispatchBatches(dispatcher, jobs, (i) -> JobRequest.of(CONTROL_JOB, Integer.toString(i)).build());
	}

	/**
	 * Start the control queue's worker and wait until the N jobs staged for it completed,
	 * or for at most the drain's time; return the jobs per second.
	 */
	private static double drainUnlimited(JobListenerContainer control, int jobs, Duration drain)
			throws InterruptedException {
		long drainStart = System.nanoTime();
		long drainEnd = drainStart + drain.toNanos();
		control.start();
		while (GatedJobs.unlimited.get() < jobs && System.nanoTime() < drainEnd) {
			Thread.sleep(1);
		}
		return GatedJobs.unlimited.get() / ((System.nanoTime() - drainStart) / 1e9);
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

		static final AtomicInteger unlimited = new AtomicInteger();

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

		@QueuedJob(name = CONTROL_JOB, queue = CONTROL_QUEUE)
		void free(String payload, JobContext context) {
			unlimited.incrementAndGet();
		}

	}

}
