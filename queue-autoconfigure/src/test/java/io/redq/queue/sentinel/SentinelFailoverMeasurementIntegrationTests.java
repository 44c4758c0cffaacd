package io.redq.queue.sentinel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisSentinel;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Measures what a kill -9 of a Sentinel-managed master costs with AOF
 * {@code appendfsync always}, with and without {@code redq.durability.replicas}: the time
 * from the kill until a job dispatched after it started, the dispatches that failed, and
 * the acknowledged dispatches whose jobs never ran. The killed master is started again
 * once the replica took over, so that the Sentinels make it the new master's replica.
 * Prints the figures with a {@code [failover]} prefix and appends them to
 * {@code target/failover-report.txt}; asserts only that the queue resumed.
 * <p>
 * About 40 s a run, so run on request:
 * {@code -Dit.test=SentinelFailoverMeasurementIntegrationTests -Dredq.failover.measure=true}.
 *
 * @author Redq team
 */
@EnabledIfSystemProperty(named = "redq.failover.measure", matches = "true")
class SentinelFailoverMeasurementIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final int PRODUCERS = 4;

	@AutoClose
	private final RedisSentinel sentinel = RedisSentinel.start("--appendonly", "yes", "--appendfsync", "always");

	@ParameterizedTest
	@ValueSource(ints = { 0, 1 })
	void killOfTheMaster(int replicas) {
		MeasuredJobs.started.clear();
		MeasuredJobs.runs.set(0);
		JobQueueContextRunner.on(this.sentinel)
			.withPropertyValues("redq.durability.replicas=" + replicas)
			.withUserConfiguration(MeasuredJobs.class)
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				Map<String, Long> acknowledged = new ConcurrentHashMap<>();
				AtomicInteger failed = new AtomicInteger();
				AtomicBoolean running = new AtomicBoolean(true);
				List<Thread> producers = new ArrayList<>();
				for (int i = 0; i < PRODUCERS; i++) {
					Thread producer = new Thread(() -> {
						while (running.get()) {
							try {
								String id = dispatcher.dispatch("measured-sentinel-job", 0).id();
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
				RedisServer master = this.sentinel.master();
				long faultAt = System.nanoTime();
				master.kill();
				RedisServer sentinel = this.sentinel.sentinels().get(0);
				await().atMost(DEADLINE)
					.ignoreExceptions()
					.until(() -> this.sentinel.currentMaster(sentinel) == this.sentinel.replica());
				long failedOver = System.nanoTime();
				master.restart();
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
				Thread.sleep(5000);
				running.set(false);
				for (Thread producer : producers) {
					producer.join(DEADLINE.toMillis());
				}
				JobQueueOperations operations = context.getBean(JobQueueOperations.class);
				await().atMost(DEADLINE)
					.ignoreExceptions()
					.until(() -> operations.stats("measured-sentinel").equals(new QueueStats(0, 0, 0, 0)));
				long lost = acknowledged.keySet()
					.stream()
					.filter((id) -> !MeasuredJobs.started.containsKey(id))
					.count();
				report(String.format(
						"[failover] kill -9 of the Sentinel-managed master (appendfsync always, down after 1 s, "
								+ "redq.durability.replicas=%d): replica named master after %.2f s, the first job "
								+ "dispatched after the kill started at %.2f s; %d dispatches failed (%d until then), "
								+ "%d of %d acknowledged dispatches never ran, %d runs more than jobs",
						replicas, seconds(failedOver - faultAt), seconds(resumed - faultAt), failed.get(),
						failedAtResume, lost, acknowledged.size(),
						MeasuredJobs.runs.get() - MeasuredJobs.started.size()));
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

		@QueuedJob(name = "measured-sentinel-job", queue = "measured-sentinel")
		void handle(int i, JobContext context) {
			runs.incrementAndGet();
			started.putIfAbsent(context.getId(), System.nanoTime());
		}

	}

}
