package io.redq.queue.core;

import java.time.Duration;
import java.util.List;

import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests that waiting for replicas is refused on a Redis Cluster, before anything is
 * written, rather than sent to a node that did not take the write.
 *
 * @author Redq team
 */
class WaitForReplicasOnRedisClusterIntegrationTests {

	@Test
	void dispatchIsRefusedBeforeItWrites() {
		try (RedisCluster cluster = RedisCluster.start(3, 0)) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(
					cluster.masters().stream().map((master) -> master.host() + ":" + master.port()).toList()));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			try {
				RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
						"redq");
				operations.setReplicasToWaitFor(1, Duration.ofSeconds(1));
				assertThatIllegalStateException()
					.isThrownBy(() -> operations.getEnqueueOperations()
						.enqueue("mail",
								List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP,
										"\"job\":\"send\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}"))))
					.withMessage("redq.durability.replicas is not supported on a Redis Cluster yet: set it to 0, or "
							+ "use a standalone or Sentinel-managed Redis");
				assertThat(operations.stats("mail").ready()).isZero();
			}
			finally {
				connectionFactory.destroy();
			}
		}
	}

}
