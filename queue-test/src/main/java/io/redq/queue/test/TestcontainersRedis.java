package io.redq.queue.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts Redis in a Docker container through Testcontainers.
 * <p>
 * Testcontainers is an optional dependency: this class is the only one that refers to it,
 * and {@link RedisServer} touches it only after checking that it is on the classpath.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class TestcontainersRedis {

	private static final int REDIS_PORT = 6379;

	private TestcontainersRedis() {
	}

	static boolean isDockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			// A broken or incomplete Testcontainers setup means "no Docker" here.
			return false;
		}
	}

	static RedisServer start() {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7"))
			.withExposedPorts(REDIS_PORT);
		try {
			container.start();
			return RedisServer.container(container.getHost(), container.getMappedPort(REDIS_PORT), container::stop);
		}
		catch (RuntimeException ex) {
			container.stop();
			throw new IllegalStateException("Could not start a redis:7 container with Testcontainers", ex);
		}
	}

}
