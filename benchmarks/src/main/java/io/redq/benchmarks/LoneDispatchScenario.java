package io.redq.benchmarks;

import io.redq.queue.core.JobDispatcher;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code lone-dispatch}: single {@code dispatch} calls from one thread, one after the
 * other, with no listener running and nothing else dispatching: the latency of a caller
 * alone, p50/p99/max of each call's time measured with {@link System#nanoTime()}.
 *
 * @author Redq team
 * @since 0.1.0
 */
class LoneDispatchScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(20_000);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			harness.warmUp(result, () -> {
				dispatch(dispatcher, harness.options().warmup(jobs));
				harness.clearQueue();
			});
			result.put("jobs", jobs);
			Phase phase = Phase.start(harness, result, jobs + " lone dispatches");
			long[] micros = dispatch(dispatcher, jobs);
			phase.end(result, "", jobs);
			result.putLatencies("dispatch", micros);
			harness.clearQueue();
		}
	}

	private static long[] dispatch(JobDispatcher dispatcher, int jobs) {
		long[] micros = new long[jobs];
		for (int i = 0; i < jobs; i++) {
			long start = System.nanoTime();
			dispatcher.dispatch(Harness.noop(i));
			micros[i] = (System.nanoTime() - start) / 1000;
		}
		return micros;
	}

}
