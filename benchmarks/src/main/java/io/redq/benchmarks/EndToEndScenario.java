package io.redq.benchmarks;

import java.util.function.IntFunction;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.JobRequest;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code e2e}, {@code e2e-single} and {@code e2e-async}: producers and the listener at
 * once, no-op jobs. Jobs per second from the first dispatch to the last acknowledgement,
 * and the latency from each job's {@code createdAt} to the start of its handler.
 *
 * <p>
 * {@code e2e} dispatches in {@code dispatchAll} batches of 1,000 from {@code --producers}
 * threads; {@code e2e-single} with single {@code dispatch} calls from {@code --threads}
 * threads, {@code e2e-async} with single {@code dispatchAsync} calls. With
 * {@code --rate}, {@code e2e} dispatches at most that many jobs per second, so that the
 * latency can be measured below saturation. With {@code --levels}, {@code e2e} spreads
 * its jobs over that many priority levels, from the highest down, one level after the
 * other, so that the reservations draw on every level at once; with {@code --groups},
 * over that many groups, taken in turn.
 *
 * @author Redq team
 * @since 0.1.0
 */
class EndToEndScenario implements Scenario {

	private final Dispatch dispatch;

	EndToEndScenario(Dispatch dispatch) {
		this.dispatch = dispatch;
	}

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(200_000);
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			harness.describe(context, result);
			harness.warmUp(result, () -> run(harness, context, harness.options().warmup(jobs), null));
			result.put("jobs", jobs);
			if (this.dispatch == Dispatch.BATCHES) {
				result.put("producers", harness.options().producers());
				result.put("rate", harness.options().rate());
				result.put("levels", levels(harness));
				result.put("groups", groups(harness));
			}
			else {
				result.put("threads", harness.options().threads());
			}
			run(harness, context, jobs, result);
		}
	}

	/**
	 * Run jobs through the queue.
	 * @param harness the harness
	 * @param context the running application
	 * @param jobs how many jobs
	 * @param result where the figures go, or {@code null} for a warm-up
	 * @throws Exception when the run fails
	 */
	void run(Harness harness, ConfigurableApplicationContext context, int jobs, Result result) throws Exception {
		Recorder recorder = context.getBean(Recorder.class);
		JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
		recorder.reset(jobs, false);
		Phase phase = Phase.start(harness, result, jobs + " jobs");
		switch (this.dispatch) {
			case BATCHES -> harness.dispatchBatches(dispatcher, jobs, (result != null) ? harness.options().rate() : 0,
					request(levels(harness), groups(harness)));
			case SINGLES -> harness.dispatchSingles(dispatcher, jobs);
			case ASYNC -> harness.dispatchSinglesAsync(dispatcher, jobs);
		}
		long dispatched = System.nanoTime();
		long end = harness.awaitCompleted(recorder, jobs);
		if (result != null) {
			phase.end(result, "", jobs, end);
			result.put("dispatchJobsPerSecond", jobs / ((dispatched - phase.startNanos()) / 1e9));
			result.putLatencies("latency", recorder.latencies());
		}
	}

	private static int levels(Harness harness) {
		return harness.options().intValue("levels", 1);
	}

	private static int groups(Harness harness) {
		return harness.options().intValue("groups", 0);
	}

	private static IntFunction<JobRequest> request(int levels, int groups) {
		if (levels <= 1 && groups <= 0) {
			return Harness::noop;
		}
		return (i) -> {
			JobRequest.Builder request = JobRequest.of(BenchmarkConfiguration.JOB, Integer.toString(i));
			if (levels > 1) {
				request.priority(JobPriority.HIGHEST - i % levels);
			}
			if (groups > 0) {
				request.group("g" + (i % groups));
			}
			return request.build();
		};
	}

	/**
	 * How the producers dispatch.
	 */
	enum Dispatch {

		/** {@code dispatchAll} batches of 1,000. */
		BATCHES,

		/** Single {@code dispatch} calls. */
		SINGLES,

		/** Single {@code dispatchAsync} calls. */
		ASYNC

	}

}
