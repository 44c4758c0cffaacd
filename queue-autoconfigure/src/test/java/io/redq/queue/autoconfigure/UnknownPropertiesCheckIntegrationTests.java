package io.redq.queue.autoconfigure;

import java.util.Set;

import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A misspelled {@code redq.*} property is reported at startup, where Spring Boot alone
 * ignores it; a correct one, map keys and declared properties included, is not.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertiesCheckIntegrationTests {

	private final ApplicationContextRunner runner;

	UnknownPropertiesCheckIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis).withPropertyValues("redq.listener.auto-startup=false");
	}

	@Test
	void aMisspelledPropertyIsReportedWithTheNearestKnownName(CapturedOutput output) {
		this.runner.withPropertyValues("redq.listner.concurrency=4", "redq.queues.mail.max-runing=2").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Unknown property 'redq.listner.concurrency'")
				.contains("Did you mean 'redq.listener.concurrency'?")
				.contains("Unknown property 'redq.queues.mail.max-runing'");
		});
	}

	@Test
	void knownPropertiesAreNotReported(CapturedOutput output) {
		this.runner
			.withPropertyValues("redq.enabled=true", "redq.listener.concurrency=4", "redq.queues.mail.max-running=2",
					"redq.remote-jobs.remote-job.queue=other", "redq.dispatcher.timeout=3s",
					"redq.recurring.enabled=true", "redq.job.backoff.delay=2s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("Unknown property");
			});
	}

	@Test
	void aPropertyOfAModuleNotOnTheClasspathIsReported(CapturedOutput output) {
		this.runner.withPropertyValues("redq.dashboard.enabled=true").run((context) -> {
			assertThat(output).contains("Unknown property 'redq.dashboard.enabled'")
				.contains("read only when that module is on the classpath");
		});
	}

	@Test
	void theNearestNameIsWithinAFewEdits() {
		Set<String> declared = Set.of("redq.listener.concurrency", "redq.key-prefix");
		assertThat(UnknownPropertiesCheck.nearest("redq.listener.concurency", declared))
			.isEqualTo("redq.listener.concurrency");
		assertThat(UnknownPropertiesCheck.nearest("redq.something-else", declared)).isNull();
	}

}
