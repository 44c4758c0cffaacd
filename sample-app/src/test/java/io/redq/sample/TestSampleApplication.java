package io.redq.sample;

import java.util.stream.Stream;

import io.redq.queue.test.RedisServer;

import org.springframework.boot.SpringApplication;

/**
 * Runs the {@link SampleApplication} on a Redis of its own: {@code REDQ_TEST_REDIS_URL},
 * else a {@code redis-server} from the {@code PATH} on a free port. Start it with
 * {@code mvn -pl sample-app -am spring-boot:test-run}; stop it with Ctrl-C.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		// RedisServer stops what it started in a JVM shutdown hook, so Ctrl-C
		// stops Redis too
		RedisServer redis = RedisServer.start();
		try {
			String[] withRedis = Stream.concat(Stream.of(args), Stream.of(redis.commandLineArgs()))
				.toArray(String[]::new);
			SpringApplication.from(SampleApplication::main).run(withRedis);
		}
		catch (RuntimeException ex) {
			redis.close();
			throw ex;
		}
	}

}
