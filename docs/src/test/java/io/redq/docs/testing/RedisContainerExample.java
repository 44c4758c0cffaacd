package io.redq.docs.testing;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * The Testing page's Redis container with {@code @ServiceConnection}, compiled for the
 * page that quotes it. Not run: the machines that build Redq have no Docker engine.
 *
 * @author Redq team
 */
@Testcontainers(disabledWithoutDocker = true)
class RedisContainerExample {

	// tag::container[]
	@Container
	@ServiceConnection(name = "redis")
	static GenericContainer<?> redis = new GenericContainer<>("redis:7").withExposedPorts(6379);

	// end::container[]

}
