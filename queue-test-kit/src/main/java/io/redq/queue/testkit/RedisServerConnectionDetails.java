package io.redq.queue.testkit;

import io.redq.queue.test.RedisServer;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * {@link DataRedisConnectionDetails} of a {@link RedisServer} from {@code queue-test}: as
 * a bean, it points Spring Boot's Redis auto-configuration at the server and takes
 * precedence over the {@code spring.data.redis.*} properties, as a
 * {@code @ServiceConnection} does.
 *
 * @author Redq team
 * @since 0.1.0
 * @see RedisServerTestConfiguration
 */
public class RedisServerConnectionDetails implements DataRedisConnectionDetails {

	private final RedisServer server;

	/**
	 * Create the details of a server.
	 * @param server the server
	 */
	public RedisServerConnectionDetails(RedisServer server) {
		this.server = server;
	}

	/**
	 * Return the server these details point at.
	 * @return the server
	 */
	public RedisServer getServer() {
		return this.server;
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(this.server.host(), this.server.port());
	}

}
