package io.redq.queue.test;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisCluster}.
 *
 * @author Redq team
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterTests {

	@AutoClose
	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.startWithFailover();
	}

	@Test
	@Order(1)
	void mastersShareTheSlotsAndEachHasAReplica() {
		assertThat(cluster.nodes()).hasSize(6).doesNotHaveDuplicates().containsAll(cluster.masters());
		assertThat(cluster.masters()).hasSize(3);
		for (RedisServer node : cluster.nodes()) {
			assertThat(node.host()).isEqualTo("127.0.0.1");
			assertThat(node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_slots_assigned:16384",
					"cluster_known_nodes:6");
		}
		for (RedisServer master : cluster.masters()) {
			assertThat(cluster.replicasOf(master)).singleElement()
				.satisfies((replica) -> assertThat(replica.command("ROLE"))
					.startsWith("slave\n127.0.0.1\n" + master.port()));
		}
		RedisServer master = cluster.masterOf("{queue}");
		assertThat(master.command("SET", "{queue}:key", "value")).isEqualTo("OK");
		assertThat(cluster.springProperties()).containsExactly("spring.data.redis.cluster.nodes="
				+ String.join(",", cluster.masters().stream().map((m) -> "127.0.0.1:" + m.port()).toList()));
	}

	@Test
	@Order(2)
	void killingAMasterPromotesItsReplica() {
		RedisServer master = cluster.masterOf("{queue}");
		List<RedisServer> replicas = cluster.replicasOf(master);
		master.kill();
		// until the replica takes over, no master serves the slot
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> cluster.masterOf("{queue}").equals(replicas.get(0)) && cluster.isOk());
		assertThat(replicas.get(0).command("ROLE")).startsWith("master\n");
	}

}
