package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A master of a Redis Cluster (three masters, one replica each, AOF
 * {@code appendfsync always}, node timeout 1 s) killed with {@code kill -9}, or failed
 * over with {@code CLUSTER FAILOVER}, while four threads dispatch a queue of three shards
 * (one on each master) without pause and its workers consume it: counts the acknowledged
 * dispatches whose jobs never ran, with and without {@code redq.durability.replicas=1},
 * and measures the time to resume. With {@code redq.durability.replicas=1} none may be
 * lost, which is asserted; without, the loss is measured. In every variant a job that
 * runs more than once must be of the faulted shard and taken from its master before the
 * replica served the slot: the other shards' jobs, and those taken from the new master,
 * run once. A killed master is started again once its replica took over, as a supervisor
 * would, so that the new master has a replica to confirm writes again. Prints the figures
 * and appends them to {@code target/chaos-report.txt}.
 * <p>
 * The kill with {@code redq.durability.replicas=1} runs with the suite (about 40 s); the
 * other variants with {@code -Dredq.chaos.soak=true}.
 *
 * @author Redq team
 */
class ClusterFailoverDurabilityIntegrationTests extends ChaosSupport {

	private static final Duration DEADLINE = Duration.ofSeconds(90);

	private static final String QUEUE = "durable";

	private static final int SHARDS = 3;

	private static final int PRODUCERS = 4;

	@AutoClose
	private final RedisCluster cluster = RedisCluster.start(3, 1, "--cluster-node-timeout", "1000", "--appendonly",
			"yes", "--appendfsync", "always");

	@Test
	void killOfAShardsMasterLosesNoAcknowledgedDispatchWithReplicasOne() {
		Outcome outcome = run("kill -9", 1, this::kill);
		assertThat(outcome.lost()).as("acknowledged dispatches that never ran").isZero();
		assertThat(outcome.ranAgainElsewhere()).as("jobs run again not taken from the faulted master").isEmpty();
	}

	@Test
	@EnabledIfSystemProperty(named = "redq.chaos.soak", matches = "true")
	void killOfAShardsMasterWithoutReplicasIsMeasured() {
		Outcome outcome = run("kill -9", 0, this::kill);
		assertThat(outcome.ranAgainElsewhere()).as("jobs run again not taken from the faulted master").isEmpty();
	}

	@Test
	@EnabledIfSystemProperty(named = "redq.chaos.soak", matches = "true")
	void clusterFailoverOfAShardsMasterLosesNoAcknowledgedDispatchWithReplicasOne() {
		Outcome outcome = run("CLUSTER FAILOVER", 1, this::clusterFailover);
		assertThat(outcome.lost()).as("acknowledged dispatches that never ran").isZero();
		assertThat(outcome.ranAgainElsewhere()).as("jobs run again not taken from the faulted master").isEmpty();
	}

	@Test
	@EnabledIfSystemProperty(named = "redq.chaos.soak", matches = "true")
	void clusterFailoverOfAShardsMasterWithoutReplicasIsMeasured() {
		Outcome outcome = run("CLUSTER FAILOVER", 0, this::clusterFailover);
		assertThat(outcome.ranAgainElsewhere()).as("jobs run again not taken from the faulted master").isEmpty();
	}

	private void kill(RedisServer master) {
		master.kill();
	}

	private void clusterFailover(RedisServer master) {
		this.cluster.replicasOf(master).get(0).command("CLUSTER", "FAILOVER");
	}

	private Outcome run(String fault, int replicas, Consumer<RedisServer> failOver) {
		boolean killed = fault.startsWith("kill");
		DurableJobs.started.clear();
		DurableJobs.runs.clear();
		AtomicReference<Outcome> outcome = new AtomicReference<>();
		runner()
			.withPropertyValues("redq.queues." + QUEUE + ".shards=" + SHARDS, "redq.durability.replicas=" + replicas)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				QueueStore store = context.getBean(RedisJobQueueOperations.class).getStore();
				QueueReader reader = new QueueReader(store);
				List<String> shards = reader.shards(QUEUE);
				assertThat(shards).hasSize(SHARDS);
				// when each acknowledged dispatch was sent
				Map<String, Long> acknowledged = new ConcurrentHashMap<>();
				Queue<Long> failures = new ConcurrentLinkedQueue<>();
				AtomicLong sequence = new AtomicLong();
				AtomicBoolean running = new AtomicBoolean(true);
				List<Thread> producers = new ArrayList<>();
				for (int i = 0; i < PRODUCERS; i++) {
					Thread producer = new Thread(() -> {
						while (running.get()) {
							// by id, so that the shard of each job is known afterwards
							String id = "job-" + sequence.incrementAndGet();
							long sentAt = System.nanoTime();
							try {
								dispatcher.dispatch(JobRequest.of("durable-job", 0).id(id).build());
								acknowledged.put(id, sentAt);
							}
							catch (RuntimeException ex) {
								failures.add(System.nanoTime());
							}
						}
					});
					producer.start();
					producers.add(producer);
				}
				try {
					await().atMost(DEADLINE).until(() -> DurableJobs.started.size() >= 500);
					String faulted = shards.get(1);
					String faultedKey = store.keys(faulted).jobs();
					RedisServer master = this.cluster.masterOf(faultedKey);
					long faultAt = System.nanoTime();
					failOver.accept(master);
					await().atMost(DEADLINE)
						.ignoreExceptions()
						.until(() -> !this.cluster.masterOf(faultedKey).equals(master) && this.cluster.isOk());
					long failedOver = System.nanoTime();
					if (killed) {
						// back as the new master's replica
						master.restart();
					}
					// resumed: a job of the faulted shard dispatched after the fault
					// started
					await().atMost(DEADLINE).until(() -> firstStartOnShard(acknowledged, reader, faulted, faultAt) > 0);
					long resumed = firstStartOnShard(acknowledged, reader, faulted, faultAt);
					Thread.sleep(3000);
					running.set(false);
					for (Thread producer : producers) {
						producer.join(DEADLINE.toMillis());
					}
					long lastFailure = failures.stream().max(Long::compare).orElse(faultAt);
					// drained: what has not run by now is not in Redis any more
					JobQueueOperations operations = context.getBean(JobQueueOperations.class);
					await().atMost(DEADLINE)
						.ignoreExceptions()
						.until(() -> operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
					long lost = acknowledged.keySet()
						.stream()
						.filter((id) -> !DurableJobs.started.containsKey(id))
						.count();
					// a job runs again only when it was taken from the faulted master:
					// its
					// reservation or acknowledgement went there
					List<String> ranAgain = DurableJobs.runs.entrySet()
						.stream()
						.filter((runs) -> runs.getValue().get() > 1)
						.map(Map.Entry::getKey)
						.toList();
					List<String> ranAgainElsewhere = ranAgain.stream()
						.filter((id) -> !reader.shardHolding(QUEUE, id).equals(faulted)
								|| DurableJobs.started.get(id) > failedOver)
						.toList();
					long extraRuns = DurableJobs.runs.values().stream().mapToLong((runs) -> runs.get() - 1).sum();
					report(String.format(
							"Cluster %s of one shard's master of a %d-shard queue (appendfsync always, node timeout "
									+ "1 s), redq.durability.replicas=%d: slot served by the replica after %.2f s, "
									+ "first job of that shard dispatched after the fault started at %.2f s, last "
									+ "failed dispatch at %.2f s; %d of %d dispatches failed, %d of %d acknowledged "
									+ "dispatches never ran, %d runs more than jobs (%d jobs, %d of them not taken from "
									+ "the faulted master before the replica served its slot)",
							fault, SHARDS, replicas, seconds(failedOver - faultAt), seconds(resumed - faultAt),
							seconds(lastFailure - faultAt), failures.size(), failures.size() + acknowledged.size(),
							lost, acknowledged.size(), extraRuns, ranAgain.size(), ranAgainElsewhere.size()));
					outcome.set(new Outcome(lost, ranAgainElsewhere));
				}
				finally {
					running.set(false);
				}
			});
		assertThat(outcome.get()).as("outcome of the run").isNotNull();
		return outcome.get();
	}

	/**
	 * When the first job of a shard whose dispatch was sent after a time started, or 0:
	 * the jobs in the order they started, until one is of the shard (a read per shard
	 * each).
	 */
	private static long firstStartOnShard(Map<String, Long> acknowledged, QueueReader reader, String shard,
			long after) {
		return acknowledged.entrySet()
			.stream()
			.filter((dispatch) -> dispatch.getValue() > after && DurableJobs.started.containsKey(dispatch.getKey()))
			.sorted(Comparator.comparingLong((dispatch) -> DurableJobs.started.get(dispatch.getKey())))
			.filter((dispatch) -> reader.shardHolding(QUEUE, dispatch.getKey()).equals(shard))
			.mapToLong((dispatch) -> DurableJobs.started.get(dispatch.getKey()))
			.findFirst()
			.orElse(0);
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					JobQueueAutoConfiguration.class))
			.withUserConfiguration(DurableJobs.class)
			.withPropertyValues(this.cluster.springProperties());
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

	/**
	 * What a run measured.
	 *
	 * @param lost how many acknowledged dispatches never ran
	 * @param ranAgainElsewhere the jobs that ran more than once though they were not
	 * taken from the faulted master before its replica served the slot
	 */
	record Outcome(long lost, List<String> ranAgainElsewhere) {
	}

	@Configuration(proxyBeanMethods = false)
	static class DurableJobs {

		static final Map<String, Long> started = new ConcurrentHashMap<>();

		static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		@QueuedJob(name = "durable-job", queue = QUEUE)
		void handle(int i, JobContext context) {
			runs.computeIfAbsent(context.getId(), (id) -> new AtomicInteger()).incrementAndGet();
			started.putIfAbsent(context.getId(), System.nanoTime());
		}

	}

}
