package io.redq.queue.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;

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
