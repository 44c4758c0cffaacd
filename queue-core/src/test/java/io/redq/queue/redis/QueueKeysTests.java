package io.redq.queue.redis;

import io.redq.queue.core.RateLimit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link QueueKeys}: every key of a queue, its gates' and recurring jobs'
 * included, is {@code <prefix>:{<queue>}:<part>}.
 *
 * @author Redq team
 */
class QueueKeysTests {

	private final QueueKeys keys = QueueKeys.of("redq", "mail");

	@Test
	void everyKeySharesTheQueueHashTag() {
		assertThat(this.keys.all()).containsExactly("redq:{mail}:ready", "redq:{mail}:delayed", "redq:{mail}:reserved",
				"redq:{mail}:dead", "redq:{mail}:jobs", "redq:{mail}:attempts", "redq:{mail}:leases",
				"redq:{mail}:errors", "redq:{mail}:wake", "redq:{mail}:sequence", "redq:{mail}:successors",
				"redq:{mail}:paused", "redq:{mail}:completed", "redq:{mail}:model", "redq:{mail}:started",
				"redq:{mail}:stalls", "redq:{mail}:stale", "redq:{mail}:runs", "redq:{mail}:stats",
				"redq:{mail}:traces", "redq:{mail}:queued", "redq:{mail}:levels", "redq:{mail}:fair",
				"redq:{mail}:lines", "redq:{mail}:parked", "redq:{mail}:holding", "redq:{mail}:held",
				"redq:{mail}:batch-links", "redq:{mail}:handover", "redq:{mail}:waiting");
	}

	@Test
	void gateKeysShareTheQueueHashTag() {
		Gates gates = new Gates("order-17", "send", 2, 10, RateLimit.parse("5/1s"));
		assertThat(this.keys.gates(gates)).containsExactly("redq:{mail}:group-running:",
				"redq:{mail}:exclusive:order-17", "redq:{mail}:running:send", "redq:{mail}:running",
				"redq:{mail}:rate:send", "redq:{mail}:places:send");
	}

	@Test
	void recurringJobStateSharesTheQueueHashTag() {
		assertThat(this.keys.recurring("daily-report")).isEqualTo("redq:{mail}:recurring:daily-report");
	}

}
