package io.redq.benchmarks;

import java.time.Duration;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.JobDispatcher;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code idle-pickup}: one job at a time into an idle queue, {@code --gap} apart; the
 * time from just before {@code dispatch} to the start of the handler, measured with
 * {@link System#nanoTime()} in this JVM.
 *
 * @author Redq team
 * @since 0.1.0
 */
class IdlePickupScenario implements Scenario {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(1000);
		Duration gap = harness.options().duration("gap", Duration.ofMillis(10));
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			harness.describe(context, result);
			harness.warmUp(result, () -> pickUp(context, Math.min(jobs, 100), gap));
			result.put("jobs", jobs);
			result.put("gapMs", gap.toMillis());
			Phase phase = Phase.start(harness, result, jobs + " pickups");
			StallMeter stalls = StallMeter.start();
			long[] micros = pickUp(context, jobs, gap);
			stalls.end(result);
			result.putLatencies("pickup", micros);
			phase.end(result, "", jobs);
			// the throughput of this scenario is the gap: not a figure to compare
			result.values().remove("jobsPerSecond");
		}
	}

	private long[] pickUp(ConfigurableApplicationContext context, int jobs, Duration gap) throws Exception {
		Recorder recorder = context.getBean(Recorder.class);
		JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
		recorder.reset(jobs, false);
		long[] micros = new long[jobs];
		for (int i = 0; i < jobs; i++) {
			Thread.sleep(gap.toMillis());
			long start = System.nanoTime();
			dispatcher.dispatch(Harness.noop(i));
			micros[i] = (recorder.awaitNext(TIMEOUT) - start) / 1000;
		}
		return micros;
	}

}
