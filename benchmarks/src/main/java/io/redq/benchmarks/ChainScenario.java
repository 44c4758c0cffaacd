package io.redq.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.BatchRequest;
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
 * one from one thread. Then the nested hand-overs, whose steps and members the migrator
 * moves: N chains of a job, a batch of 2 jobs and a job ({@code chainBatchStep...}, per
 * job), and N/2 batches of 2 chains of {@code --steps} steps ({@code batchOfChains...}).
 * A nested phase's time includes the migrator's wake-ups, so its commands and CPU per job
 * are the figures to compare.
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
			int batchSteps = chains * 4;
			recorder.reset(batchSteps, false);
			Phase withBatch = Phase.start(harness, result, chains + " chains with a batch step of 2 jobs");
			for (int i = 0; i < chains; i++) {
				int first = i * 4;
				dispatcher.dispatchChain(ChainRequest.builder()
					.step(Harness.noop(first))
					.step(BatchRequest.of(List.of(Harness.noop(first + 1), Harness.noop(first + 2))).build())
					.step(Harness.noop(first + 3))
					.build());
			}
			withBatch.end(result, "chainBatchStep", batchSteps, harness.awaitCompleted(recorder, batchSteps));
			recorder.reset(jobs, false);
			Phase ofChains = Phase.start(harness, result, chains / 2 + " batches of 2 chains of " + steps + " steps");
			for (int i = 0; i < chains / 2; i++) {
				BatchRequest.Builder batch = BatchRequest.builder();
				for (int member = 0; member < 2; member++) {
					List<JobRequest> chain = new ArrayList<>(steps);
					for (int step = 0; step < steps; step++) {
						chain.add(Harness.noop(((i * 2) + member) * steps + step));
					}
					batch.chain(ChainRequest.of(chain).build());
				}
				dispatcher.dispatchBatch(batch.build());
			}
			int members = chains / 2 * 2 * steps;
			ofChains.end(result, "batchOfChains", members, harness.awaitCompleted(recorder, members));
		}
	}

}
