package io.redq.queue.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Keeps running a queue's jobs while Redis Cluster fails the queue's master over to its
 * replica.
 *
 * @author Redq team
 */
class RedisClusterFailoverIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private static final String QUEUE = "q0";

	@AutoClose
	private final RedisCluster cluster = RedisCluster.startWithFailover();

	@Test
	void queueRunsJobsAfterItsMasterFailedOver() {
		// No Lettuce settings: Redq's defaults on a Cluster (a 5s command timeout, a
		// topology refresh every 2s and on adaptive triggers) let the queue resume. With
		// Lettuce's and Spring Boot's, commands sent to the lost master (the idle
		// container's blocking wait, a dispatch) wait for the 60s command timeout.
		JobQueueContextRunner.on(this.cluster).withUserConfiguration(FailoverJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			List<String> before = dispatch(dispatcher, 10);
			await().atMost(DEADLINE).until(() -> FailoverJobs.handled.containsAll(before));
			RedisServer master = this.cluster.masterOf("{" + QUEUE + "}");
			RedisServer replica = this.cluster.replicasOf(master).get(0);
			master.kill();
			// until the replica takes over, no master serves the queue's slot
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> this.cluster.masterOf("{" + QUEUE + "}").equals(replica) && this.cluster.isOk());
			// until Lettuce's next topology refresh, a dispatch may still go to the
			// lost master and time out: callers retry, as this does for the first
			List<String> after = new ArrayList<>();
			after.add(await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> dispatcher.dispatch("failover-job", -1).id(), Objects::nonNull));
			after.addAll(dispatch(dispatcher, 10));
			await().atMost(DEADLINE).until(() -> FailoverJobs.handled.containsAll(after));
			assertThat(context).hasNotFailed();
		});
	}

	@Test
	void noDispatchFailsWhileTheQueuesReplicaTakesOverByClusterFailover() {
		JobQueueContextRunner.on(this.cluster).withUserConfiguration(FailoverJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			RedisServer master = this.cluster.masterOf("{" + QUEUE + "}");
			RedisServer replica = this.cluster.replicasOf(master).get(0);
			Set<String> dispatched = ConcurrentHashMap.newKeySet();
			List<RuntimeException> failures = new CopyOnWriteArrayList<>();
			AtomicBoolean running = new AtomicBoolean(true);
			Thread producer = new Thread(() -> {
				while (running.get()) {
					try {
						dispatched.add(dispatcher.dispatch("failover-job", 0).id());
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
				}
			});
			producer.start();
			await().atMost(DEADLINE).until(() -> dispatched.size() >= 100);
			// a manual failover: the master hands its slots over once the replica caught
			// up
			replica.command("CLUSTER", "FAILOVER");
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> this.cluster.masterOf("{" + QUEUE + "}").equals(replica) && this.cluster.isOk());
			int atFailover = dispatched.size();
			await().atMost(DEADLINE).until(() -> dispatched.size() >= atFailover + 100);
			running.set(false);
			producer.join(DEADLINE.toMillis());
			assertThat(failures).isEmpty();
			await().atMost(DEADLINE).until(() -> FailoverJobs.handled.containsAll(dispatched));
			assertThat(context).hasNotFailed();
		});
	}

	@Test
	void noDispatchFailsWhileAnotherMasterFailsOver() {
		JobQueueContextRunner.on(this.cluster).withUserConfiguration(FailoverJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			RedisServer queueMaster = this.cluster.masterOf("{" + QUEUE + "}");
			// masters as the cluster sees them now: on a loaded machine a replica may
			// have
			// taken over from a master started as such
			RedisServer lost = IntStream.range(0, 100)
				.mapToObj((i) -> this.cluster.masterOf("{other-" + i + "}"))
				.filter((master) -> !master.equals(queueMaster))
				.findFirst()
				.orElseThrow();
			RedisServer replica = this.cluster.replicasOf(lost).get(0);
			Set<String> dispatched = ConcurrentHashMap.newKeySet();
			List<RuntimeException> failures = new CopyOnWriteArrayList<>();
			AtomicBoolean running = new AtomicBoolean(true);
			Thread producer = new Thread(() -> {
				while (running.get()) {
					try {
						dispatched.add(dispatcher.dispatch("failover-job", 0).id());
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
				}
			});
			producer.start();
			await().atMost(DEADLINE).until(() -> dispatched.size() >= 100);
			// every node answers CLUSTERDOWN from when it marks the master failed until
			// its replica takes over, the queue's master included
			lost.kill();
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> replica.command("ROLE").startsWith("master") && this.cluster.isOk());
			int atFailover = dispatched.size();
			await().atMost(DEADLINE).until(() -> dispatched.size() >= atFailover + 100);
			running.set(false);
			producer.join(DEADLINE.toMillis());
			assertThat(failures).isEmpty();
			await().atMost(DEADLINE).until(() -> FailoverJobs.handled.containsAll(dispatched));
			assertThat(context).hasNotFailed();
		});
	}

	private static List<String> dispatch(JobDispatcher dispatcher, int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(dispatcher.dispatch("failover-job", i).id());
		}
		return ids;
	}

	@Configuration(proxyBeanMethods = false)
	static class FailoverJobs {

		static final ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();

		@QueuedJob(name = "failover-job", queue = QUEUE)
		void handle(int i, JobContext context) {
			handled.add(context.getId());
		}

	}

}
