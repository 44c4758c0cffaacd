package io.redq.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RepeatedFailureLog}.
 *
 * @author Redq team
 */
class RepeatedFailureLogTests {

	private final List<String> lines = new CopyOnWriteArrayList<>();

	private final NoOpLog logger = new NoOpLog() {

		@Override
		public void warn(Object message) {
			RepeatedFailureLogTests.this.lines.add("WARN " + message);
		}

		@Override
		public void info(Object message) {
			RepeatedFailureLogTests.this.lines.add("INFO " + message);
		}

	};

	@Test
	void aCallThatKeepsFailingIsLoggedOnceThenRarelyWithTheCountAndOnceWhenItWorksAgain() {
		RepeatedFailureLog log = new RepeatedFailureLog(this.logger, "reserve jobs of queue 'mail'",
				Duration.ofMillis(200));
		QueryTimeoutException down = new QueryTimeoutException("Redis command timed out");
		for (int i = 0; i < 250; i++) {
			log.failed(down, "retrying in 200ms");
		}
		assertThat(this.lines).hasSize(1);
		assertThat(this.lines.get(0)).startsWith("WARN Could not reserve jobs of queue 'mail', retrying in 200ms");
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			log.failed(down, "retrying in 200ms");
			return this.lines.size() == 2;
		});
		assertThat(this.lines.get(1)).startsWith("WARN Could not reserve jobs of queue 'mail': ")
			.contains(" more failure(s) in the last ");
		log.succeeded();
		log.succeeded();
		assertThat(this.lines).hasSize(3);
		assertThat(this.lines.get(2)).startsWith("INFO Could reserve jobs of queue 'mail' again, after ");
	}

}
