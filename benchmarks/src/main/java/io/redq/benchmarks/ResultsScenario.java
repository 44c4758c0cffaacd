package io.redq.benchmarks;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;
import io.redq.queue.redis.JobResults;
import io.redq.queue.redis.QueueKeys;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code results}: N jobs (N = 2,000) that each return a result of about 108 bytes of
 * JSON, dispatched by {@code --threads} callers (8) that each wait for their job's result
 * with {@link JobResults#await} before they dispatch the next: the time from the
 * handler's return, right before the acknowledgement that writes the result, to the
 * waiting caller's wake-up (p50/p99, {@code wakeUp...}), measured with
 * {@link System#nanoTime()} in this JVM. Each handler runs {@code --hold} (5 ms) before
 * it returns, so that the wait is registered before the result is written and the caller
 * is woken by Redis's announcement, as one that waits for a job that runs longer than a
 * round trip is. Then the Redis bytes per stored result: {@code MEMORY USAGE} of each
 * result key, averaged ({@code bytesPerResult}), and the growth of {@code used_memory}
 * per result, which also counts the key's place in the expiry table
 * ({@code usedMemoryPerResult}).
 *
 * @author Redq team
 * @since 0.1.0
 */
class ResultsScenario implements Scenario {

	private static final String JOB = "answer";

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(2000);
		int callers = harness.options().intValue("threads", 8);
		Duration hold = harness.options().duration("hold", Duration.ofMillis(5));
		AnswerJobs.hold = hold;
		try (ConfigurableApplicationContext context = harness.start(AnswerJobs.class)) {
			harness.describe(context, result);
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobResults results = context.getBean(JobResults.class);
			harness.warmUp(result, () -> wait(dispatcher, results, Math.min(jobs, 500), callers, new ArrayList<>()));
			RedisAdmin redis = harness.redis();
			result.put("jobs", jobs);
			result.put("callers", callers);
			result.put("holdMs", hold.toMillis());
			long before = redis.usedMemory();
			List<String> ids = new ArrayList<>(jobs);
			Phase phase = Phase.start(harness, result, jobs + " results waited for by " + callers + " callers");
			StallMeter stalls = StallMeter.start();
			long[] micros = wait(dispatcher, results, jobs, callers, ids);
			stalls.end(result);
			phase.end(result, "", jobs);
			result.putLatencies("wakeUp", micros);
			result.put("usedMemoryPerResult", (double) (redis.usedMemory() - before) / jobs);
			QueueKeys keys = Harness.queueKeys();
			long bytes = 0;
			for (String id : ids) {
				bytes += redis.memoryUsage(keys.result(id));
			}
			result.put("bytesPerResult", (double) bytes / jobs);
			// the callers wait for each job in turn: not a throughput to compare
			result.values().remove("jobsPerSecond");
		}
	}

	/**
	 * Dispatch {@code jobs} jobs from {@code callers} threads, each waiting for its job's
	 * result before the next, and return each wake-up's delay after its handler returned.
	 */
	private static long[] wait(JobDispatcher dispatcher, JobResults results, int jobs, int callers, List<String> ids)
			throws Exception {
		long[] micros = new long[jobs];
		AtomicInteger next = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(callers, (task) -> new Thread(task, "bench-caller"));
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int c = 0; c < callers; c++) {
				running.add(pool.submit(() -> {
					for (int i = next.getAndIncrement(); i < jobs; i = next.getAndIncrement()) {
						String id = dispatcher.dispatch(JobRequest.of(JOB, Integer.toString(i)).build()).id();
						Answer answer = results.await(BenchmarkConfiguration.QUEUE, id, Answer.class, Harness.TIMEOUT)
							.get(Harness.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
						long woken = System.nanoTime();
						micros[i] = (woken - AnswerJobs.returned.remove(answer.id())) / 1000;
						synchronized (ids) {
							ids.add(id);
						}
					}
					return null;
				}));
			}
			for (Future<?> caller : running) {
				caller.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		return micros;
	}

	/**
	 * A result of about 108 bytes of JSON.
	 */
	record Answer(String id, String item, BigDecimal price, List<String> tags) {
	}

	/**
	 * The job that answers: it runs {@code --hold}, then records when it returns.
	 */
	static class AnswerJobs {

		static final Map<String, Long> returned = new ConcurrentHashMap<>();

		static volatile Duration hold = Duration.ZERO;

		@QueuedJob(name = JOB, queue = BenchmarkConfiguration.QUEUE)
		Answer answer(String payload, JobContext context) throws InterruptedException {
			Thread.sleep(hold.toMillis());
			Answer answer = new Answer(context.getId(), "item " + payload, new BigDecimal("1234.50"),
					List.of("priced", "in-stock", "ships-today"));
			returned.put(context.getId(), System.nanoTime());
			return answer;
		}

	}

}
