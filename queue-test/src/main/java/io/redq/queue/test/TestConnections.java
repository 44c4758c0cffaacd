package io.redq.queue.test;

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
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

}
