package io.redq.benchmarks;

import java.util.List;

import io.redq.queue.core.Due;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobIds;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.RedisJobQueueOperations;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@code enqueue}: dispatch throughput with no listener running: single {@code dispatch}
 * calls from {@code --threads} threads, the same with {@code dispatchAsync} (each thread
 * waits for its futures at the end), then {@code dispatchAll} batches of 1,000 from
 * {@code --producers} threads.
 * <p>
 * As a reference, the same threads also call the enqueue script straight through
 * {@link EnqueueOperations}, one job of a ready-made envelope per call ({@code bare}):
 * what a single dispatch would reach if the dispatcher's own work (the job's definition,
 * its JSON, metrics) cost nothing, on this machine and client in the same minute.
 * {@code singleToBare} is the ratio of the two. And they push one id per synchronous
 * {@code LPUSH} through the application's template ({@code javaLpush}): what one command
 * per call reaches through this client, the fair measure of a single dispatch
 * ({@code singleToJavaLpush}) beside {@code redis-benchmark}'s LPUSH.
 *
 * @author Redq team
 * @since 0.1.0
 */
class EnqueueScenario implements Scenario {

	/**
	 * The envelope of a no-op job as the dispatcher writes it, without its opening brace.
	 */
	private static final String BARE_BODY = "\"job\":\"" + BenchmarkConfiguration.JOB + "\",\"maxAttempts\":"
			+ JobDefaults.DEFAULT_MAX_ATTEMPTS + ",\"timeout\":0,\"payload\":\"0\"}";

	private static final String JAVA_LPUSH_KEY = "redq-benchmark:lpush";

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(200_000);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			int warmup = harness.options().warmup(jobs);
			EnqueueOperations operations = context.getBean(RedisJobQueueOperations.class).getEnqueueOperations();
			harness.warmUp(result, () -> {
				harness.dispatchSingles(dispatcher, warmup);
				harness.dispatchSinglesAsync(dispatcher, warmup);
				enqueueBare(harness, operations, warmup);
				harness.dispatchBatches(dispatcher, warmup, Harness::noop);
				harness.clearQueue();
			});
			result.put("jobs", jobs);
			result.put("threads", harness.options().threads());
			Phase single = Phase.start(harness, result, jobs + " single dispatches");
			harness.dispatchSingles(dispatcher, jobs);
			single.end(result, "single", jobs);
			harness.clearQueue();
			Phase bare = Phase.start(harness, result, jobs + " bare enqueue script calls");
			enqueueBare(harness, operations, jobs);
			bare.end(result, "bare", jobs);
			harness.clearQueue();
			result.put("singleToBare", throughput(result, "single") / throughput(result, "bare"));
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			Phase javaLpush = Phase.start(harness, result, jobs + " LPUSH calls through the application's template");
			lpushFromJava(harness, redis, jobs);
			javaLpush.end(result, "javaLpush", jobs);
			redis.delete(JAVA_LPUSH_KEY);
			result.put("singleToJavaLpush", throughput(result, "single") / throughput(result, "javaLpush"));
			Phase async = Phase.start(harness, result, jobs + " asynchronous single dispatches");
			harness.dispatchSinglesAsync(dispatcher, jobs);
			async.end(result, "async", jobs);
			harness.clearQueue();
			result.put("producers", harness.options().producers());
			Phase batch = Phase.start(harness, result, jobs + " jobs in batches");
			harness.dispatchBatches(dispatcher, jobs, Harness::noop);
			batch.end(result, "batch", jobs);
			harness.clearQueue();
		}
	}

	/**
	 * The same threads pushing one id per synchronous {@code LPUSH} through the
	 * application's {@link StringRedisTemplate}: what one command per call reaches on
	 * this machine and client, where {@code redis-benchmark}'s LPUSH has 50 connections
	 * of a C client.
	 */
	private static void lpushFromJava(Harness harness, StringRedisTemplate redis, int jobs) throws Exception {
		int threads = harness.options().threads();
		Harness.parallel(threads, (thread) -> {
			for (int i = thread; i < jobs; i += threads) {
				redis.opsForList().leftPush(JAVA_LPUSH_KEY, JobIds.next());
			}
		});
	}

	private static double throughput(Result result, String prefix) {
		return ((Number) result.values().get(prefix + Result.THROUGHPUT)).doubleValue();
	}

	private static void enqueueBare(Harness harness, EnqueueOperations operations, int jobs) throws Exception {
		int threads = harness.options().threads();
		Harness.parallel(threads, (thread) -> {
			for (int i = thread; i < jobs; i += threads) {
				operations.enqueue(BenchmarkConfiguration.QUEUE,
						List.of(EnqueueCommand.withGeneratedId(JobIds.next(), Due.NOW, BARE_BODY)));
			}
		});
	}

}
