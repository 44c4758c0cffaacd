package io.redq.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code removal}: what taking a ready job out of line costs behind a backlog: N/10 and
 * then N ready jobs (default N = 1,000,000), then 1,000 more ready jobs at the tail of
 * the line, the worst place for a search, which are cancelled one by one, rescheduled one
 * by one (an hour ahead), and replaced in one {@code dispatchAll} of 1,000
 * {@code REPLACE} dispatches. Reports each call's mean time seen by the client and the
 * Redis script time per call ({@code INFO commandstats}): both must not grow with the
 * backlog. No listener runs.
 *
 * @author Redq team
 * @since 0.1.0
 */
class RemovalScenario implements Scenario {

	private static final int TARGETS = 1000;

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(1_000_000);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			for (int backlog : List.of(jobs / 10, jobs)) {
				harness.clearQueue();
				harness.dispatchBatches(dispatcher, backlog, Harness::noop);
				String name = "backlog" + backlog;
				result.put(name + "CancelMicros", measure(harness, dispatcher, "cancel",
						(id) -> operations.cancel(BenchmarkConfiguration.QUEUE, id)));
				result.put(name + "RescheduleMicros", measure(harness, dispatcher, "reschedule", (id) -> operations
					.reschedule(BenchmarkConfiguration.QUEUE, id, Due.after(Duration.ofHours(1)))));
				result.put(name + "ReplaceMicros", measureReplace(harness, dispatcher));
				result.put(name + "Ready", operations.stats(BenchmarkConfiguration.QUEUE).ready());
			}
			harness.clearQueue();
		}
	}

	/**
	 * Return the mean client time and Redis script time per call, in microseconds, of one
	 * call on each of {@link #TARGETS} ready jobs at the tail of the line.
	 */
	private List<Double> measure(Harness harness, JobDispatcher dispatcher, String prefix, IdCall call) {
		List<String> ids = dispatchTargets(dispatcher, prefix);
		long scriptMicros = scriptMicros(harness);
		long start = System.nanoTime();
		for (String id : ids) {
			call.run(id);
		}
		return List.of(round((System.nanoTime() - start) / 1e3 / ids.size()),
				round((double) (scriptMicros(harness) - scriptMicros) / ids.size()));
	}

	/**
	 * As {@link #measure}, for one {@code dispatchAll} that replaces every target: the
	 * time per replaced job.
	 */
	private List<Double> measureReplace(Harness harness, JobDispatcher dispatcher) {
		List<String> ids = dispatchTargets(dispatcher, "replace");
		List<JobRequest> replacements = new ArrayList<>(ids.size());
		for (String id : ids) {
			replacements.add(JobRequest.of(BenchmarkConfiguration.JOB, "new").id(id, DuplicatePolicy.REPLACE).build());
		}
		long scriptMicros = scriptMicros(harness);
		long start = System.nanoTime();
		dispatcher.dispatchAll(replacements);
		return List.of(round((System.nanoTime() - start) / 1e3 / ids.size()),
				round((double) (scriptMicros(harness) - scriptMicros) / ids.size()));
	}

	private static List<String> dispatchTargets(JobDispatcher dispatcher, String prefix) {
		List<JobRequest> requests = new ArrayList<>(TARGETS);
		List<String> ids = new ArrayList<>(TARGETS);
		for (int i = 0; i < TARGETS; i++) {
			ids.add(prefix + "-" + i);
			requests.add(JobRequest.of(BenchmarkConfiguration.JOB, "old").id(ids.get(i), DuplicatePolicy.KEEP).build());
		}
		dispatcher.dispatchAll(requests);
		return ids;
	}

	/**
	 * Return the microseconds Redis spent in scripts so far.
	 */
	private static long scriptMicros(Harness harness) {
		long micros = 0;
		for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
			String stats = harness.redis().info("commandstats").get(command);
			if (stats != null) {
				for (String field : stats.split(",")) {
					if (field.startsWith("usec=")) {
						micros += Long.parseLong(field.substring(5));
					}
				}
			}
		}
		return micros;
	}

	private static double round(double value) {
		return Math.round(value * 10) / 10.0;
	}

	@FunctionalInterface
	private interface IdCall {

		void run(String id);

	}

}
