package io.redq.queue.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JobBackoff}.
 *
 * @author Redq team
 */
class JobBackoffTests {

	@Test
	void delayGrowsByMultiplierForEachAttempt() {
		JobBackoff backoff = new JobBackoff(Duration.ofMillis(100), 3.0, Duration.ofHours(1), Duration.ZERO);
		assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofMillis(300));
		assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofMillis(900));
		assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofMillis(2700));
	}

	@Test
	void multiplierOfOneKeepsDelayFixed() {
		JobBackoff backoff = new JobBackoff(Duration.ofSeconds(2), 1.0, Duration.ofHours(1), Duration.ZERO);
		assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(2));
		assertThat(backoff.delayAfter(7)).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void delayIsCappedByMaxDelay() {
		JobBackoff backoff = new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5), Duration.ZERO);
		assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
		assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(5));
		assertThat(backoff.delayAfter(5)).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void delayStaysCappedWhenTheExponentOverflows() {
		JobBackoff backoff = new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), Duration.ZERO);
		assertThat(backoff.delayAfter(10_000)).isEqualTo(Duration.ofMinutes(10));
		assertThat(backoff.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofMinutes(10));
	}

	@Test
	void firstDelayLargerThanMaxDelayIsCapped() {
		JobBackoff backoff = new JobBackoff(Duration.ofMinutes(5), 2.0, Duration.ofMinutes(1), Duration.ZERO);
		assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void jitterAddsAtMostTheJitter() {
		JobBackoff backoff = new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(4), Duration.ofMillis(500));
		boolean jittered = false;
		for (int i = 0; i < 500; i++) {
			Duration first = backoff.delayAfter(1);
			Duration capped = backoff.delayAfter(10);
			assertThat(first).isBetween(Duration.ofMillis(1000), Duration.ofMillis(1500));
			// jitter comes on top of the cap
			assertThat(capped).isBetween(Duration.ofMillis(4000), Duration.ofMillis(4500));
			jittered |= !first.equals(Duration.ofMillis(1000));
		}
		assertThat(jittered).as("some delay got a random part").isTrue();
	}

	@Test
	void noJitterGivesExactDelays() {
		JobBackoff backoff = new JobBackoff(Duration.ofMillis(250), 2.0, Duration.ofMinutes(1), Duration.ZERO);
		for (int i = 0; i < 100; i++) {
			assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofMillis(500));
		}
	}

	@Test
	void defaultIsOneSecondDoublingUpToTenMinutesWithoutJitter() {
		assertThat(JobBackoff.DEFAULT.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(JobBackoff.DEFAULT.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(JobBackoff.DEFAULT.delayAfter(30)).isEqualTo(Duration.ofMinutes(10));
	}

	@Test
	void negativeDelayIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobBackoff(Duration.ofMillis(-1), 2.0, Duration.ofMinutes(1), Duration.ZERO))
			.withMessage("Backoff delay must not be negative");
	}

	@Test
	void multiplierBelowOneIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobBackoff(Duration.ofSeconds(1), 0.5, Duration.ofMinutes(1), Duration.ZERO))
			.withMessage("Backoff multiplier must be at least 1.0");
	}

	@Test
	void multiplierNotANumberIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobBackoff(Duration.ofSeconds(1), Double.NaN, Duration.ofMinutes(1), Duration.ZERO))
			.withMessage("Backoff multiplier must be at least 1.0");
	}

	@Test
	void negativeMaxDelayIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(-1), Duration.ZERO))
			.withMessage("Backoff max delay must not be negative");
	}

	@Test
	void negativeJitterIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobBackoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), Duration.ofMillis(-5)))
			.withMessage("Backoff jitter must not be negative");
	}

}
