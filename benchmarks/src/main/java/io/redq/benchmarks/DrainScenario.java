package io.redq.benchmarks;

import io.redq.queue.core.JobDispatcher;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code drain}: N no-op jobs are dispatched while no listener runs; then the listener
 * starts, and the phase lasts until the last one is acknowledged.
 *
 * @author Redq team
 * @since 0.1.0
 */
class DrainScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(200_000);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			harness.describe(context, result);
			harness.warmUp(result, () -> drain(harness, context, harness.options().warmup(jobs), null));
			result.put("jobs", jobs);
			drain(harness, context, jobs, result);
		}
	}

	private void drain(Harness harness, ConfigurableApplicationContext context, int jobs, Result result)
			throws Exception {
		Recorder recorder = context.getBean(Recorder.class);
		recorder.reset(jobs, false);
		harness.dispatchBatches(context.getBean(JobDispatcher.class), jobs, Harness::noop);
		Phase phase = Phase.start(harness, result, jobs + " jobs");
		Harness.startContainers(context);
		long end = harness.awaitCompleted(recorder, jobs);
		if (result != null) {
			phase.end(result, "", jobs, end);
		}
		Harness.stopContainers(context);
	}

}
