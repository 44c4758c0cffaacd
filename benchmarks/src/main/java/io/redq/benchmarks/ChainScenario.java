package io.redq.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code chain}: N chains of {@code --steps} no-op steps in one queue (N = 10,000, 3
 * steps) beside as many plain jobs dispatched with {@code dispatchAll}, while workers
 * run: the Redis commands and CPU per chain step against those per plain job
 * ({@code chainCommandsPerJob}, {@code plainCommandsPerJob}). Each step after the first
 * is created by the acknowledgement of the step before; the chains are dispatched one by
 * one from one thread.
 *
 * @author Redq team
 * @since 0.1.0
 */
class ChainScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int chains = harness.options().jobs(10_000);
		int steps = harness.options().intValue("steps", 3);
		int jobs = chains * steps;
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			harness.describe(context, result);
			Recorder recorder = context.getBean(Recorder.class);
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			result.put("chains", chains);
			result.put("steps", steps);
			recorder.reset(jobs, false);
			Phase plain = Phase.start(harness, result, jobs + " plain jobs");
			harness.dispatchBatches(dispatcher, jobs, Harness::noop);
			plain.end(result, "plain", jobs, harness.awaitCompleted(recorder, jobs));
			recorder.reset(jobs, false);
			Phase chained = Phase.start(harness, result, chains + " chains of " + steps + " steps");
			for (int i = 0; i < chains; i++) {
				List<JobRequest> chain = new ArrayList<>(steps);
				for (int step = 0; step < steps; step++) {
					chain.add(Harness.noop(i * steps + step));
				}
				dispatcher.dispatchChain(ChainRequest.of(chain).build());
			}
			chained.end(result, "chain", jobs, harness.awaitCompleted(recorder, jobs));
		}
	}

}
