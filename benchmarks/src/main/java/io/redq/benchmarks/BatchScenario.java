package io.redq.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.QueueKeys;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code batch}: the creation of a batch of N no-op members (N = 200,000) beside
 * {@code dispatchAll} of as many jobs from one thread, in alternating rounds: members/s
 * against jobs/s, and the Redis bytes per pending member against those per pending job
 * ({@code INFO memory} {@code used_memory}), with the share of the batch's pending set
 * and the queue's links ({@code MEMORY USAGE}). No listener runs.
 *
 * @author Redq team
 * @since 0.1.0
 */
class BatchScenario implements Scenario {

	private static final int ROUNDS = 2;

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(200_000);
		List<JobRequest> requests = new ArrayList<>(jobs);
		for (int i = 0; i < jobs; i++) {
			requests.add(Harness.noop(i));
		}
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			RedisAdmin redis = harness.redis();
			QueueKeys keys = Harness.queueKeys();
			result.put("jobs", jobs);
			// a warm-up round of each
			dispatcher.dispatchAll(requests.subList(0, Math.min(jobs, 20_000)));
			harness.clearQueue();
			clear(redis,
					dispatcher.dispatchBatch(BatchRequest.of(requests.subList(0, Math.min(jobs, 20_000))).build()));
			harness.clearQueue();
			for (int round = 1; round <= ROUNDS; round++) {
				long before = redis.usedMemory();
				Phase plain = Phase.start(harness, result, jobs + " jobs with dispatchAll, round " + round);
				dispatcher.dispatchAll(requests);
				plain.end(result, "dispatchAll" + round, jobs);
				result.put("dispatchAll" + round + "BytesEach", (double) (redis.usedMemory() - before) / jobs);
				harness.clearQueue();
				before = redis.usedMemory();
				Phase batch = Phase.start(harness, result, "a batch of " + jobs + " members, round " + round);
				BatchResult created = dispatcher.dispatchBatch(BatchRequest.of(requests).build());
				batch.end(result, "batch" + round, jobs);
				result.put("batch" + round + "BytesEach", (double) (redis.usedMemory() - before) / jobs);
				BatchKeys batchKeys = Benchmarks.KEYSPACE.batch(created.batchId());
				result.put("batch" + round + "PendingBytesEach",
						(double) redis.memoryUsage(batchKeys.pending()) / jobs);
				result.put("batch" + round + "LinkBytesEach", (double) redis.memoryUsage(keys.batchLinks()) / jobs);
				clear(redis, created);
				harness.clearQueue();
			}
		}
	}

	private static void clear(RedisAdmin redis, BatchResult batch) {
		redis.delete(Benchmarks.KEYSPACE.batch(batch.batchId()).all());
	}

}
