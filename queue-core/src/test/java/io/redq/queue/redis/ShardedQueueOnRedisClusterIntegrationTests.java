package io.redq.queue.redis;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Tests of a sharded queue on a three-master Redis Cluster started by the test on
 * 127.0.0.1, where its three shards land on the three masters.
 *
 * @author Redq team
 */
class ShardedQueueOnRedisClusterIntegrationTests extends AbstractShardedQueueIntegrationTests {

	@AutoClose
	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@BeforeEach
	void empty() {
		cluster.masters().forEach((master) -> master.command("FLUSHALL"));
	}

	@Override
	LettuceConnectionFactory connectionFactory() {
		return TestConnections.connectionFactory(cluster);
	}

	@Override
	QueueReader.ShardPlace expectedPlace(String hashTag) {
		RedisServer master = cluster.masterOf(hashTag);
		return new QueueReader.ShardPlace(hashTag, Integer.valueOf(master.command("CLUSTER", "KEYSLOT", hashTag)),
				master.host() + ":" + master.port());
	}

	@Override
	boolean distinctOwners(QueueStore store, List<String> keys) {
		Set<RedisServer> owners = new HashSet<>();
		keys.forEach((key) -> owners.add(cluster.masterOf(key)));
		return owners.size() == keys.size();
	}

}
