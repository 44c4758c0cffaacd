package io.redq.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping the sample as the README's command runs it: the application stops before its
 * Redis, so that it logs no reconnect warning.
 *
 * @author Redq team
 */
class SampleShutdownIntegrationTests {

	@Test
	void stoppingTheSampleStopsItsRedisAfterIt(@TempDir Path directory) throws Exception {
		Path log = directory.resolve("sample.log");
		Process sample = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), TestSampleApplication.class.getName(), "--server.port=0",
				// keys of its own, should REDQ_TEST_REDIS_URL name the other tests' Redis
				"--redq.key-prefix=redq-sample-shutdown", "--sample.load.rate=20")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			await().atMost(Duration.ofMinutes(3))
				.until(() -> read(log).contains("Started SampleApplication") || !sample.isAlive());
			assertThat(sample.isAlive()).as("the sample started: %s", read(log)).isTrue();
			// SIGTERM: the JVM runs its shutdown hooks as for Ctrl-C's SIGINT
			sample.destroy();
			assertThat(sample.waitFor(2, TimeUnit.MINUTES)).as("the sample stopped").isTrue();
		}
		finally {
			sample.destroyForcibly();
		}
		String output = read(log);
		assertThat(output).contains("Stopped job listener container for queue 'mail'")
			.doesNotContain("ConnectionWatchdog")
			.doesNotContain("Cannot reconnect");
	}

	private static String read(Path log) throws IOException {
		return Files.readString(log, StandardCharsets.UTF_8);
	}

}
