package io.redq.queue.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Measures what a failover of a queue's master costs on a Redis Cluster with AOF
 * {@code appendfsync always} and no Redis property set (Redq's failover defaults): the
 * time from the fault until a job dispatched after it started, the dispatches that
 * failed, and the acknowledged dispatches whose jobs never ran. Prints the figures with a
 * {@code [failover]} prefix and appends them to {@code target/failover-report.txt};
 * asserts only that the queue resumed.
 * <p>
 * About 30 s a scenario, so run on request:
 * {@code -Dit.test=ClusterFailoverMeasurementIntegrationTests -Dredq.failover.measure=true}.
 *
 * @author Redq team
 */
@EnabledIfSystemProperty(named = "redq.failover.measure", matches = "true")
class ClusterFailoverMeasurementIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final String QUEUE = "measured";

	private static final int PRODUCERS = 4;

	@AutoClose
	private final RedisCluster cluster = RedisCluster.start(3, 1, "--cluster-node-timeout", "1000", "--appendonly",
			"yes", "--appendfsync", "always");

	@Test
	void clusterFailoverOfTheQueuesMaster() {
		measure("CLUSTER FAILOVER", (master) -> this.cluster.replicasOf(master).get(0).command("CLUSTER", "FAILOVER"));
	}

	@Test
	void killOfTheQueuesMaster() {
		measure("kill -9", RedisServer::kill);
	}

	private void measure(String fault, Consumer<RedisServer> failOver) {
		MeasuredJobs.started.clear();
		MeasuredJobs.runs.set(0);
		JobQueueContextRunner.on(this.cluster).withUserConfiguration(MeasuredJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			Map<String, Long> acknowledged = new ConcurrentHashMap<>();
			AtomicInteger failed = new AtomicInteger();
			AtomicBoolean running = new AtomicBoolean(true);
			// several callers, as a caller whose dispatch went to the lost master waits
			// for its timeout
			List<Thread> producers = new ArrayList<>();
			for (int i = 0; i < PRODUCERS; i++) {
				Thread producer = new Thread(() -> {
					while (running.get()) {
						try {
							String id = dispatcher.dispatch("measured-job", 0).id();
							acknowledged.put(id, System.nanoTime());
						}
						catch (RuntimeException ex) {
							failed.incrementAndGet();
						}
					}
				});
				producer.start();
				producers.add(producer);
			}
			await().atMost(DEADLINE).until(() -> MeasuredJobs.started.size() >= 2000);
			RedisServer master = this.cluster.masterOf("{" + QUEUE + "}");
			long faultAt = System.nanoTime();
			failOver.accept(master);
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> !this.cluster.masterOf("{" + QUEUE + "}").equals(master) && this.cluster.isOk());
			long failedOver = System.nanoTime();
			// resumed: a job whose dispatch returned after the fault started
			await().atMost(DEADLINE)
				.until(() -> acknowledged.entrySet()
					.stream()
					.anyMatch((dispatch) -> dispatch.getValue() > faultAt
							&& MeasuredJobs.started.containsKey(dispatch.getKey())));
			long resumed = acknowledged.entrySet()
				.stream()
				.filter((dispatch) -> dispatch.getValue() > faultAt)
				.map((dispatch) -> MeasuredJobs.started.get(dispatch.getKey()))
				.filter((start) -> start != null)
				.min(Long::compare)
				.orElseThrow();
			int failedAtResume = failed.get();
			// workers at work again: the first start of any job after the slot was served
			long workersResumed = MeasuredJobs.started.values()
				.stream()
				.filter((start) -> start > failedOver)
				.min(Long::compare)
				.orElse(resumed);
			Thread.sleep(5000);
			running.set(false);
			for (Thread producer : producers) {
				producer.join(DEADLINE.toMillis());
			}
			// drained: what has not run by now is not in Redis any more
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
			Set<String> lost = ConcurrentHashMap.newKeySet();
			acknowledged.keySet().stream().filter((id) -> !MeasuredJobs.started.containsKey(id)).forEach(lost::add);
			long lostBeforeFault = lost.stream().filter((id) -> acknowledged.get(id) < faultAt).count();
			String report = String.format(
					"[failover] %s of the queue's master (appendfsync always, node timeout 1 s, no Redis property set): "
							+ "slot served by the replica after %.2f s, a job started again at %.2f s, the first job "
							+ "dispatched after the fault at %.2f s; %d dispatches failed (%d until then), %d of %d "
							+ "acknowledged dispatches never ran (%d acknowledged before the fault), %d runs more than jobs",
					fault, seconds(failedOver - faultAt), seconds(workersResumed - faultAt), seconds(resumed - faultAt),
					failed.get(), failedAtResume, lost.size(), acknowledged.size(), lostBeforeFault,
					MeasuredJobs.runs.get() - MeasuredJobs.started.size());
			report(report);
			assertThat(context).hasNotFailed();
		});
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

	private static void report(String line) {
		System.out.println(line);
		try {
			Files.writeString(Path.of("target", "failover-report.txt"), line + System.lineSeparator(),
					StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class MeasuredJobs {

		static final Map<String, Long> started = new ConcurrentHashMap<>();

		static final AtomicLong runs = new AtomicLong();

		@QueuedJob(name = "measured-job", queue = QUEUE)
		void handle(int i, JobContext context) {
			runs.incrementAndGet();
			started.putIfAbsent(context.getId(), System.nanoTime());
		}

	}

}
