package io.redq.benchmarks;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.JobDispatcher;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code enqueue}: dispatch throughput with no listener running, first with single
 * {@code dispatch} calls from {@code --threads} threads, then with {@code dispatchAll}
 * batches of 1,000 from {@code --producers} threads.
 *
 * @author Redq team
 * @since 0.1.0
 */
class EnqueueScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(200_000);
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class,
				"redq.listener.auto-startup=false")) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			int warmup = harness.options().warmup(jobs);
			harness.warmUp(result, () -> {
				harness.dispatchSingles(dispatcher, warmup);
				harness.dispatchBatches(dispatcher, warmup, Harness::noop);
				harness.clearQueue();
			});
			result.put("jobs", jobs);
			result.put("threads", harness.options().threads());
			harness.log("Measuring " + jobs + " single dispatches");
			Phase single = Phase.start(harness);
			harness.dispatchSingles(dispatcher, jobs);
			single.end(result, "single", jobs);
			harness.clearQueue();
			result.put("producers", harness.options().producers());
			harness.log("Measuring " + jobs + " jobs in batches");
			Phase batch = Phase.start(harness);
			harness.dispatchBatches(dispatcher, jobs, Harness::noop);
			batch.end(result, "batch", jobs);
			harness.clearQueue();
		}
	}

}
