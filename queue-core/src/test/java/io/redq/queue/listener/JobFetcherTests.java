package io.redq.queue.listener;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.redq.queue.listener.JobFetcher.Reserved;
import io.redq.queue.redis.Reservation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of how {@link JobFetcher} dates a reservation, from which its leases are counted
 * in this JVM.
 *
 * @author Redq team
 */
class JobFetcherTests {

	private static final Reserved IDLE = new Reserved(millis(1), 5_000);

	@Test
	void aReservationIsDatedWhenItWasSent() {
		assertThat(JobFetcher.reservedNanos(millis(2), null, ranAt(5_250))).isEqualTo(millis(2));
	}

	@Test
	void aReservationBehindAWaitIsDatedByTheRedisClockSinceTheReservationBefore() {
		// sent 2 ms after the one before, run 250 ms of the Redis clock after it: at
		// least 249 ms, as the clock reads whole milliseconds
		assertThat(JobFetcher.reservedNanos(millis(3), IDLE, ranAt(5_250))).isEqualTo(millis(1 + 249));
	}

	@Test
	void aReservationBehindAWaitIsNeverDatedBeforeItWasSent() {
		// a Redis clock set back meanwhile
		assertThat(JobFetcher.reservedNanos(millis(3), IDLE, ranAt(4_000))).isEqualTo(millis(3));
		assertThat(JobFetcher.reservedNanos(millis(3), IDLE, ranAt(5_000))).isEqualTo(millis(3));
	}

	private static Reservation ranAt(long redisTime) {
		return new Reservation(redisTime, -1, List.of(), List.of());
	}

	private static long millis(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

}
