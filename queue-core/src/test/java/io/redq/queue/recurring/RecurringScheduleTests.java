package io.redq.queue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RecurringSchedule}: next and latest ticks, without Redis.
 *
 * @author Redq team
 */
class RecurringScheduleTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	@Test
	void fixedRateTicksAreMultiplesOfTheRateSinceTheEpoch() {
		RecurringSchedule schedule = RecurringSchedule.fixedRate(Duration.ofMillis(200));
		assertThat(schedule.next(Instant.parse("2025-06-01T12:00:00.130Z")))
			.isEqualTo(Instant.parse("2025-06-01T12:00:00.200Z"));
		assertThat(schedule.latest(Instant.parse("2025-06-01T12:00:00.130Z")))
			.isEqualTo(Instant.parse("2025-06-01T12:00:00Z"));
		RecurringSchedule quarterHours = RecurringSchedule.fixedRate(Duration.ofMinutes(15));
		assertThat(quarterHours.next(Instant.parse("2025-06-01T12:07:00Z")))
			.isEqualTo(Instant.parse("2025-06-01T12:15:00Z"));
	}

	@Test
	void nextIsStrictlyAfterAndLatestIsAtOrBefore() {
		Instant tick = Instant.parse("2025-06-01T12:15:00Z");
		for (RecurringSchedule schedule : new RecurringSchedule[] { RecurringSchedule.fixedRate(Duration.ofMinutes(15)),
				RecurringSchedule.cron("0 */15 * * * *", BERLIN) }) {
			assertThat(schedule.next(tick)).as("%s", schedule).isEqualTo(tick.plus(Duration.ofMinutes(15)));
			assertThat(schedule.next(tick.minusMillis(1))).as("%s", schedule).isEqualTo(tick);
			assertThat(schedule.latest(tick)).as("%s", schedule).isEqualTo(tick);
			assertThat(schedule.latest(tick.minusMillis(1))).as("%s", schedule)
				.isEqualTo(tick.minus(Duration.ofMinutes(15)));
		}
	}

	@Test
	void cronIsReadInItsZoneAcrossDaylightSavingTime() {
		RecurringSchedule schedule = RecurringSchedule.cron("0 0 9 * * *", BERLIN);
		// CET is UTC+1, CEST (from 2025-03-30) is UTC+2
		assertThat(schedule.next(Instant.parse("2025-01-15T07:30:00Z")))
			.isEqualTo(Instant.parse("2025-01-15T08:00:00Z"));
		assertThat(schedule.next(Instant.parse("2025-03-29T08:00:00Z")))
			.isEqualTo(Instant.parse("2025-03-30T07:00:00Z"));
		assertThat(schedule.next(Instant.parse("2025-07-15T07:30:00Z")))
			.isEqualTo(Instant.parse("2025-07-16T07:00:00Z"));
		assertThat(schedule.latest(Instant.parse("2025-03-30T06:59:59Z")))
			.isEqualTo(Instant.parse("2025-03-29T08:00:00Z"));
		assertThat(RecurringSchedule.cron("0 0 9 * * *", ZoneId.of("UTC")).next(Instant.parse("2025-01-15T07:30:00Z")))
			.isEqualTo(Instant.parse("2025-01-15T09:00:00Z"));
	}

	@Test
	void cronFollowsSpringAcrossDaylightSavingTimeChanges() {
		RecurringSchedule schedule = RecurringSchedule.cron("0 30 2 * * *", BERLIN);
		// 02:30 does not exist in Berlin on 2025-03-30 (02:00 CET becomes 03:00 CEST)
		assertThat(schedule.next(Instant.parse("2025-03-29T12:00:00Z")))
			.isEqualTo(Instant.parse("2025-03-31T00:30:00Z"));
		// 02:30 comes twice on 2025-10-26 (03:00 CEST becomes 02:00 CET): two ticks
		Instant first = schedule.next(Instant.parse("2025-10-25T12:00:00Z"));
		assertThat(first).isEqualTo(Instant.parse("2025-10-26T00:30:00Z"));
		assertThat(schedule.next(first)).isEqualTo(Instant.parse("2025-10-26T01:30:00Z"));
	}

	@Test
	void latestCronTickIsFoundFarBack() {
		RecurringSchedule weekdays = RecurringSchedule.cron("0 0 9 * * MON-FRI", BERLIN);
		// Sunday 2025-06-08: the latest tick was on Friday
		assertThat(weekdays.latest(Instant.parse("2025-06-08T20:00:00Z")))
			.isEqualTo(Instant.parse("2025-06-06T07:00:00Z"));
		RecurringSchedule leapDays = RecurringSchedule.cron("0 0 0 29 2 *", ZoneId.of("UTC"));
		assertThat(leapDays.latest(Instant.parse("2027-06-01T00:00:00Z")))
			.isEqualTo(Instant.parse("2024-02-29T00:00:00Z"));
		RecurringSchedule everySecondOnTheFirst = RecurringSchedule.cron("* * * 1 * *", ZoneId.of("UTC"));
		assertThat(everySecondOnTheFirst.latest(Instant.parse("2025-06-15T10:00:00Z")))
			.isEqualTo(Instant.parse("2025-06-01T23:59:59Z"));
	}

	@Test
	void latestAndNextOfEveryTickAgree() {
		RecurringSchedule schedule = RecurringSchedule.cron("0 15,45 8-17 * * MON-FRI", BERLIN);
		Instant tick = schedule.next(Instant.parse("2025-10-20T00:00:00Z"));
		for (int i = 0; i < 200; i++) {
			Instant next = schedule.next(tick);
			assertThat(schedule.latest(next.minusMillis(1))).isEqualTo(tick);
			assertThat(schedule.latest(next)).isEqualTo(next);
			tick = next;
		}
	}

	@Test
	void invalidSchedulesAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.fixedRate(Duration.ZERO))
			.withMessage("Fixed rate must be at least 1ms, not PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.fixedRate(Duration.ofNanos(1_500_000)))
			.withMessage("Fixed rate must be whole milliseconds, not PT0.0015S");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.cron("0 * * * *", BERLIN))
			.withMessageContaining("0 * * * *");
	}

	@Test
	void describesItself() {
		RecurringSchedule cron = RecurringSchedule.cron("0 0 9 * * *", BERLIN);
		assertThat(cron.getCron()).isEqualTo("0 0 9 * * *");
		assertThat(cron.getZone()).isEqualTo(BERLIN);
		assertThat(cron.getFixedRate()).isNull();
		assertThat(cron).hasToString("cron '0 0 9 * * *' in Europe/Berlin")
			.isEqualTo(RecurringSchedule.cron("0 0 9 * * *", BERLIN));
		RecurringSchedule rate = RecurringSchedule.fixedRate(Duration.ofSeconds(30));
		assertThat(rate.getFixedRate()).isEqualTo(Duration.ofSeconds(30));
		assertThat(rate.getCron()).isNull();
		assertThat(rate.getZone()).isNull();
		assertThat(rate).hasToString("fixed rate PT30S").isNotEqualTo(cron);
	}

}
