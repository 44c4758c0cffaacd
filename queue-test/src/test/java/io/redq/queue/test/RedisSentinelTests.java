package io.redq.queue.test;

import java.time.Duration;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisSentinel}.
 *
 * @author Redq team
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelTests {

	@AutoClose
	private static RedisSentinel group;

	@BeforeAll
	static void startGroup() {
		group = RedisSentinel.start();
	}

	@Test
	@Order(1)
	void sentinelsMonitorTheMasterAndItsReplica() {
		assertThat(group.masterName()).isEqualTo(RedisSentinel.MASTER_NAME);
		assertThat(group.sentinelPorts()).hasSize(3)
			.doesNotHaveDuplicates()
			.isEqualTo(group.sentinels().stream().map(RedisServer::port).toList());
		for (RedisServer sentinel : group.sentinels()) {
			assertThat(sentinel.command("INFO", "server")).contains("redis_mode:sentinel");
			assertThat(group.currentMaster(sentinel)).isEqualTo(group.master());
		}
		assertThat(group.replica().command("ROLE")).startsWith("slave\n127.0.0.1\n" + group.master().port());
		group.master().command("SET", "k", "v");
		await().atMost(Duration.ofSeconds(10)).until(() -> "v".equals(group.replica().command("GET", "k")));
		assertThat(group.springProperties()).containsExactly("spring.data.redis.sentinel.master=redq",
				"spring.data.redis.sentinel.nodes="
						+ String.join(",", group.sentinelPorts().stream().map((port) -> "127.0.0.1:" + port).toList()));
	}

	@Test
	@Order(2)
	void killingTheMasterMakesTheSentinelsPromoteTheReplica() {
		group.master().kill();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> group.sentinels()
				.stream()
				.allMatch((sentinel) -> group.currentMaster(sentinel).equals(group.replica())));
		assertThat(group.replica().command("ROLE")).startsWith("master\n");
		assertThat(group.replica().command("SET", "k", "w")).isEqualTo("OK");
	}

}
