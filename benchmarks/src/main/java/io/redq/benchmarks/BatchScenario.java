package io.redq.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code batch}: the creation of a batch of N no-op members (N = 200,000; the issue's
 * figure is N = 1,000,000) beside {@code dispatchAll} of as many jobs from one thread, in
 * alternating rounds: members/s against jobs/s, and the Redis bytes per pending member
 * against those per pending job ({@code INFO memory} {@code used_memory}), with the share
 * of the batch's pending set and the queue's links ({@code MEMORY USAGE}). Then each is
 * completed as workers and the migrator would (reservations and acknowledgements of
 * 1,000, and for the batch the hand-overs after each): the Redis commands and script time
 * per completed member against those per completed job ({@code complete...} figures), and
 * the bytes per member still pending once half the members finished
 * ({@code batch1HalfBytesEach}), against those at creation. No listener runs.
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
			ListenerOperations listener = context.getBean(RedisJobQueueOperations.class).getListenerOperations();
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
				Phase completeBatch = Phase.start(harness, result, "completing the batch's members, round " + round);
				complete(listener, jobs / 2, true);
				long halfDone = redis.usedMemory();
				complete(listener, jobs - jobs / 2, true);
				completeBatch.end(result, "completeBatch" + round, jobs);
				result.put("batch" + round + "HalfBytesEach", (double) (halfDone - before) / (jobs - jobs / 2));
				clear(redis, created);
				harness.clearQueue();
				dispatcher.dispatchAll(requests);
				Phase completePlain = Phase.start(harness, result, "completing as many plain jobs, round " + round);
				complete(listener, jobs, false);
				completePlain.end(result, "completePlain" + round, jobs);
				harness.clearQueue();
			}
		}
	}

	/**
	 * Reserve and acknowledge jobs 1,000 at a time, and for batch members apply the
	 * hand-overs of each 1,000 to the batch as the migrator does.
	 */
	private static void complete(ListenerOperations listener, int jobs, boolean members) {
		int completed = 0;
		while (completed < jobs) {
			List<Lease> leases = listener
				.reserve(BenchmarkConfiguration.QUEUE, Math.min(1000, jobs - completed), Duration.ofMinutes(5))
				.jobs()
				.stream()
				.map(ReservedJob::lease)
				.toList();
			listener.getLeaseOperations().ack(BenchmarkConfiguration.QUEUE, leases);
			if (members) {
				listener.handOver(BenchmarkConfiguration.QUEUE);
			}
			completed += leases.size();
		}
	}

	private static void clear(RedisAdmin redis, BatchResult batch) {
		redis.delete(Benchmarks.KEYSPACE.batch(batch.batchId()).all());
	}

}
