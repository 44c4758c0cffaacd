package io.redq.queue.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ScriptRefusals}.
 *
 * @author Redq team
 */
class ScriptRefusalsTests {

	@Test
	void refusalsAreRepliesRedisGivesBeforeRunningAScript() {
		assertThat(ScriptRefusals.isRefusal(error("CLUSTERDOWN The cluster is down"))).isTrue();
		assertThat(ScriptRefusals.isRefusal(error("TRYAGAIN Multiple keys request during rehashing of slot"))).isTrue();
		assertThat(ScriptRefusals.isRefusal(error("MOVED 3999 127.0.0.1:6381"))).isTrue();
		assertThat(ScriptRefusals.isRefusal(error("ASK 3999 127.0.0.1:6381"))).isTrue();
		assertThat(ScriptRefusals.isRefusal(error("READONLY You can't write against a read only replica."))).isTrue();
		assertThat(ScriptRefusals.isRefusal(new RedisSystemException("Error in execution",
				new RedisCommandExecutionException("LOADING Redis is loading the dataset in memory"))))
			.isTrue();
		assertThat(ScriptRefusals.isRefusal(new CompletionException(error("CLUSTERDOWN Hash slot not served"))))
			.isTrue();
	}

	@Test
	void otherFailuresAreNoRefusals() {
		assertThat(ScriptRefusals.isRefusal(error("ERR Error running script"))).isFalse();
		assertThat(ScriptRefusals.isRefusal(error("Redq data model 5 found, these scripts write 4"))).isFalse();
		assertThat(ScriptRefusals.isRefusal(error("ASKING is not a reply"))).isFalse();
		// Redis may have run a call that timed out
		assertThat(ScriptRefusals.isRefusal(new RedisCommandTimeoutException("Command timed out after 5 second(s)")))
			.isFalse();
	}

	@Test
	void pausesDoubleFrom20MillisecondsUpToOneSecondAndLastAboutThreeSecondsInAll() {
		assertThat(ScriptRefusals.delay(0)).isEqualTo(Duration.ofMillis(20));
		assertThat(ScriptRefusals.delay(1)).isEqualTo(Duration.ofMillis(40));
		assertThat(ScriptRefusals.delay(ScriptRefusals.RETRIES - 1)).isEqualTo(Duration.ofSeconds(1));
		Duration all = Duration.ZERO;
		for (int retry = 0; retry < ScriptRefusals.RETRIES; retry++) {
			all = all.plus(ScriptRefusals.delay(retry));
		}
		assertThat(all).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(4));
	}

	@Test
	void aRefusedCallIsSentAgainUntilTaken() {
		AtomicInteger calls = new AtomicInteger();
		assertThat(ScriptRefusals.retried(() -> {
			if (calls.incrementAndGet() < 3) {
				throw error("CLUSTERDOWN The cluster is down");
			}
			return "taken";
		})).isEqualTo("taken");
		assertThat(calls).hasValue(3);
	}

	@Test
	void aRefusedAsyncCallIsSentAgainUntilTaken() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> reply = ScriptRefusals.retriedAsync(() -> (calls.incrementAndGet() < 3)
				? CompletableFuture.failedFuture(error("TRYAGAIN Multiple keys request during rehashing of slot"))
				: CompletableFuture.completedFuture("taken"));
		assertThat(reply.join()).isEqualTo("taken");
		assertThat(calls).hasValue(3);
	}

	@Test
	void anotherFailureIsNotRetried() {
		AtomicInteger calls = new AtomicInteger();
		assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> ScriptRefusals.retried(() -> {
			calls.incrementAndGet();
			throw new RedisSystemException("Error in execution", error("ERR Error running script"));
		}));
		assertThat(calls).hasValue(1);
	}

	private static RuntimeException error(String message) {
		return new RedisCommandExecutionException(message);
	}

}
