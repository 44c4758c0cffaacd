package io.redq.queue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisJobQueueOperations#purge(String)} on a three-node Redis Cluster
 * started by the test on 127.0.0.1.
 *
 * @author Redq team
 */
class PurgeOnRedisClusterIntegrationTests {

	@AutoClose
	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@Test
	void purgeFindsEveryKeyOfAQueueOnTheNodeThatServesItsSlot() {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(
				cluster.masters().stream().map((master) -> master.host() + ":" + master.port()).toList()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try {
			RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
					"test");
			ListenerOperations listener = operations.getListenerOperations();
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			// queues on different slots, spread over the nodes
			List<String> queues = List.of("q0", "q1", "q2", "q3", "q4", "q5");
			Gates gates = new Gates("account-1", "ship", 1, 1, null);
			for (String queue : queues) {
				operations.getEnqueueOperations()
					.enqueue(queue, List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP,
							"\"job\":\"ship\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}")));
				ReservedJob job = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
				assertThat(listener.admit(queue, job.lease(), gates, Duration.ofMinutes(1), Duration.ofSeconds(1)))
					.isZero();
				template.opsForHash().put(operations.getStore().keys(queue).recurring("nightly"), "last", "1");
			}
			try (RedisClusterConnection connection = connectionFactory.getClusterConnection()) {
				assertThat(queues.stream()
					.map((queue) -> connection.clusterGetNodeForKey(
							operations.getStore().keys(queue).ready().getBytes(StandardCharsets.UTF_8)))
					.distinct()).as("nodes of the queues").hasSizeGreaterThan(1);
			}
			for (String queue : queues) {
				operations.purge(queue);
				QueueKeys keys = operations.getStore().keys(queue);
				assertThat(template.keys("test:{" + queue + "}:*")).containsExactlyInAnyOrder(keys.sequence(),
						keys.model());
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
