package io.redq.sample;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.redq.queue.test.RedisServer;

import org.springframework.boot.SpringApplication;

/**
 * Runs the {@link SampleApplication} on a Redis of its own: {@code REDQ_TEST_REDIS_URL},
 * else a {@code redis-server} from the {@code PATH} on a free port. Start it with
 * {@code mvn -pl sample-app -am spring-boot:test-run}; stop it with Ctrl-C, which stops
 * the application first and its Redis after it.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class TestSampleApplication {

	/** The longest the Redis waits for the application to stop. */
	private static final long STOP_TIMEOUT_SECONDS = 60;

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		RedisServer redis = RedisServer.start();
		try {
			// On Ctrl-C, Spring Boot's shutdown hook closes the context, then runs its
			// shutdown handlers; Redis stops after them, so that the application does not
			// lose it while it stops.
			CountDownLatch closed = new CountDownLatch(1);
			SpringApplication.getShutdownHandlers().add(closed::countDown);
			redis.stopOnShutdownAfter(() -> await(closed));
			String[] withRedis = Stream.concat(Stream.of(args), Stream.of(redis.commandLineArgs()))
				.toArray(String[]::new);
			SpringApplication.from(SampleApplication::main).run(withRedis);
		}
		catch (RuntimeException ex) {
			redis.close();
			throw ex;
		}
	}

	private static void await(CountDownLatch closed) {
		try {
			closed.await(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
