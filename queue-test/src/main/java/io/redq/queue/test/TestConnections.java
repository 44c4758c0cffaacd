package io.redq.queue.test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories for tests that use the library without an application context.
 *
 * @author Redq team
 */
public final class TestConnections {

	private TestConnections() {
	}

	/**
	 * Return a started connection factory for the server; destroy it after the test.
	 * @param redis the server
	 * @return the connection factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisServer redis) {
		return start(new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())));
	}

	/**
	 * Return a started connection factory for the cluster, which finds the nodes through
	 * its masters; destroy it after the test.
	 * @param cluster the cluster
	 * @return the connection factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisCluster cluster) {
		return start(new LettuceConnectionFactory(new RedisClusterConfiguration(
				cluster.masters().stream().map((master) -> master.host() + ":" + master.port()).toList())));
	}

	private static LettuceConnectionFactory start(LettuceConnectionFactory connectionFactory) {
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

}
