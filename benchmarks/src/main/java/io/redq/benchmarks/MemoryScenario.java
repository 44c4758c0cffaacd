package io.redq.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.QueueKeys;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code memory}: Redis memory ({@code INFO memory} {@code used_memory}) per pending job:
 * N ready no-op jobs with generated ids, then N timers with caller-chosen ids due in an
 * hour. No listener runs. Also gives each key's share ({@code MEMORY USAGE}) per job.
 *
 * @author Redq team
 * @since 0.1.0
 */
class MemoryScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(100_000);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			result.put("jobs", jobs);
			measure(harness, dispatcher, jobs, Harness::noop, "job", result);
			measure(harness, dispatcher, jobs,
					(i) -> JobRequest.of(BenchmarkConfiguration.JOB, Integer.toString(i))
						.id("order-" + i, DuplicatePolicy.REPLACE)
						.delay(Duration.ofHours(1))
						.build(),
					"timer", result);
		}
	}

	private void measure(Harness harness, JobDispatcher dispatcher, int jobs, IntFunction<JobRequest> request,
			String name, Result result) throws Exception {
		RedisAdmin redis = harness.redis();
		QueueKeys keys = Harness.queueKeys();
		harness.clearQueue();
		long before = redis.usedMemory();
		harness.dispatchBatches(dispatcher, jobs, request);
		long after = redis.usedMemory();
		result.put(name + "BytesEach", (double) (after - before) / jobs);
		Map<String, Double> byKey = new LinkedHashMap<>();
		for (String key : keys.all()) {
			long bytes = redis.memoryUsage(key);
			if (bytes > 0) {
				byKey.put(key.substring(key.lastIndexOf(':') + 1), Math.round(10.0 * bytes / jobs) / 10.0);
			}
		}
		result.put(name + "KeyBytesEach", byKey);
		String envelope = redis.anyHashValue(keys.jobs());
		result.put(name + "EnvelopeBytes", (envelope != null) ? envelope.length() : 0);
		if (name.equals("job")) {
			result.put("jobEnvelopeSample", envelope);
		}
		harness.clearQueue();
	}

}
