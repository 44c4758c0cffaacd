package io.redq.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code soak}: {@code e2e} rounds of {@code --jobs} jobs back to back for
 * {@code --duration} (10 minutes by default). After each minute: the jobs per second of
 * that minute, the heap in use after a full GC ({@link System#gc()}, once a minute), and
 * the collections so far.
 *
 * @author Redq team
 * @since 0.1.0
 */
class SoakScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(50_000);
		Duration duration = harness.options().duration("duration", Duration.ofMinutes(10));
		EndToEndScenario e2e = new EndToEndScenario(EndToEndScenario.Dispatch.BATCHES);
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			harness.describe(context, result);
			result.put("jobsPerRound", jobs);
			List<Map<String, Object>> minutes = new ArrayList<>();
			long start = System.nanoTime();
			long minuteStart = start;
			long total = 0;
			long minuteJobs = 0;
			while (System.nanoTime() - start < duration.toNanos()) {
				e2e.run(harness, context, jobs, null);
				total += jobs;
				minuteJobs += jobs;
				long now = System.nanoTime();
				if (now - minuteStart >= Duration.ofMinutes(1).toNanos()) {
					Map<String, Object> minute = minute(minutes.size() + 1, minuteJobs / ((now - minuteStart) / 1e9));
					harness.log("soak " + minute);
					minutes.add(minute);
					minuteStart = System.nanoTime();
					minuteJobs = 0;
				}
			}
			result.put("jobs", total);
			result.put("jobsPerSecond", total / ((System.nanoTime() - start) / 1e9));
			result.put("minutes", minutes);
		}
	}

	private Map<String, Object> minute(int minute, double jobsPerSecond) {
		long collections = 0;
		long collectionMillis = 0;
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			collections += collector.getCollectionCount();
			collectionMillis += collector.getCollectionTime();
		}
		System.gc();
		long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("minute", minute);
		figures.put("jobsPerSecond", Math.round(jobsPerSecond));
		figures.put("heapAfterGcMb", Math.round(heap / 1e5) / 10.0);
		figures.put("gcCount", collections);
		figures.put("gcMillis", collectionMillis);
		return figures;
	}

}
