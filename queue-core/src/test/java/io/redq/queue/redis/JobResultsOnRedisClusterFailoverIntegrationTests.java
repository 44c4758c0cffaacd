package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of a wait for a job's result on a Redis Cluster whose master of the job's queue
 * fails over to its replica while the wait runs.
 *
 * @author Redq team
 */
class JobResultsOnRedisClusterFailoverIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final String QUEUE = "q0";

	@AutoClose
	private final RedisCluster cluster = RedisCluster.startWithFailover();

	private LettuceConnectionFactory connectionFactory;

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void aWaitIsWokenAfterItsQueuesMasterFailedOver() {
		// Lettuce learns the new master within a second, and commands stuck on the lost
		// one fail, as in RedisClusterFailoverIntegrationTests
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(
						this.cluster.masters().stream().map((master) -> master.host() + ":" + master.port()).toList()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterClientOptions.builder()
						.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
							.enablePeriodicRefresh(Duration.ofSeconds(1))
							.build())
						.build())
					.commandTimeout(Duration.ofSeconds(6))
					.build());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("results"));
		ListenerOperations listener = operations.getListenerOperations();
		String channel = operations.getStore().keys(QUEUE).waiting();
		try (JobResults results = new JobResults(operations.getStore())) {
			operations.getEnqueueOperations()
				.enqueue(QUEUE, List.of(new EnqueueCommand("done", Due.NOW, DuplicatePolicy.KEEP,
						"\"job\":\"quote\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}")));
			ReservedJob job = listener.reserve(QUEUE, 1, Duration.ofMinutes(5)).jobs().get(0);
			CompletableFuture<Integer> result = results.await(QUEUE, "done", Integer.class, Duration.ofMinutes(5));
			await().atMost(DEADLINE).until(() -> operations.getStore().getTemplate().hasKey(channel));
			RedisServer master = this.cluster.masterOf(channel);
			RedisServer replica = this.cluster.replicasOf(master).get(0);
			// the replica has every write, the waiting key the last
			await().atMost(DEADLINE).until(() -> replica.command("DBSIZE").equals(master.command("DBSIZE")));
			master.kill();
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.until(() -> this.cluster.masterOf(channel).equals(replica) && this.cluster.isOk());
			// until Lettuce's next topology refresh, the ack may go to the lost master
			await().atMost(DEADLINE)
				.ignoreExceptions()
				.untilAsserted(
						() -> listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()), Map.of("done", "7")));
			assertThat(result).succeedsWithin(DEADLINE).isEqualTo(7);
		}
	}

}
