package io.redq.queue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;

/**
 * When a recurring job ticks: on a cron expression in a time zone, or at a fixed rate.
 * Every application instance computes the same ticks, so that a tick is known by its time
 * alone.
 *
 * <p>
 * Fixed-rate ticks are the multiples of the rate since the Unix epoch, so
 * {@code fixedRate(Duration.ofMinutes(15))} ticks at :00, :15, :30 and :45 of every UTC
 * hour, whenever the applications start. Cron ticks follow Spring's
 * {@link CronExpression} (six fields, seconds first, or a macro such as {@code @hourly})
 * in the schedule's zone, daylight saving time included.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class RecurringSchedule {

	private final @Nullable CronExpression cron;

	private final @Nullable ZoneId zone;

	private final long rate;

	private RecurringSchedule(@Nullable CronExpression cron, @Nullable ZoneId zone, long rate) {
		this.cron = cron;
		this.zone = zone;
		this.rate = rate;
	}

	/**
	 * Return a schedule that ticks on a cron expression.
	 * @param expression the expression, e.g. {@code "0 0 9 * * MON-FRI"}
	 * @param zone the time zone the expression is read in
	 * @return the schedule
	 * @throws IllegalArgumentException when the expression is not valid
	 */
	public static RecurringSchedule cron(String expression, ZoneId zone) {
		return new RecurringSchedule(CronExpression.parse(expression), zone, 0);
	}

	/**
	 * Return a schedule that ticks at every multiple of the rate since the Unix epoch.
	 * @param rate the time between ticks, positive and in whole milliseconds
	 * @return the schedule
	 * @throws IllegalArgumentException when the rate is not positive or has a fraction of
	 * a millisecond
	 */
	public static RecurringSchedule fixedRate(Duration rate) {
		Assert.isTrue(rate.toMillis() > 0, () -> "Fixed rate must be at least 1ms, not " + rate);
		Assert.isTrue(Duration.ofMillis(rate.toMillis()).equals(rate),
				() -> "Fixed rate must be whole milliseconds, not " + rate);
		return new RecurringSchedule(null, null, rate.toMillis());
	}

	/**
	 * Return the cron expression.
	 * @return the expression, or {@code null} for a fixed rate
	 */
	public @Nullable String getCron() {
		return (this.cron != null) ? this.cron.toString() : null;
	}

	/**
	 * Return the time zone of the cron expression.
	 * @return the zone, or {@code null} for a fixed rate
	 */
	public @Nullable ZoneId getZone() {
		return this.zone;
	}

	/**
	 * Return the fixed rate.
	 * @return the rate, or {@code null} for a cron expression
	 */
	public @Nullable Duration getFixedRate() {
		return (this.cron != null) ? null : Duration.ofMillis(this.rate);
	}

	/**
	 * Return the first tick after an instant.
	 * @param after the instant
	 * @return the tick, strictly after {@code after}, or {@code null} when there is none
	 */
	public @Nullable Instant next(Instant after) {
		long tick = next(after.toEpochMilli());
		return (tick >= 0) ? Instant.ofEpochMilli(tick) : null;
	}

	/**
	 * Return the latest tick at or before an instant.
	 * @param at the instant
	 * @return the tick, or {@code null} when there was none since the Unix epoch
	 */
	public @Nullable Instant latest(Instant at) {
		long tick = latest(at.toEpochMilli());
		return (tick >= 0) ? Instant.ofEpochMilli(tick) : null;
	}

	/**
	 * Return the first tick after a time.
	 * @param after epoch milliseconds
	 * @return the tick in epoch milliseconds, or -1 for none
	 */
	long next(long after) {
		if (this.cron == null) {
			return (Math.floorDiv(after, this.rate) + 1) * this.rate;
		}
		ZonedDateTime next = this.cron.next(Instant.ofEpochMilli(after).atZone(this.zone));
		return (next != null) ? next.toInstant().toEpochMilli() : -1;
	}

	/**
	 * Return the latest tick at or before a time.
	 * @param at epoch milliseconds
	 * @return the tick in epoch milliseconds, or -1 for none since the Unix epoch
	 */
	long latest(long at) {
		if (this.cron == null) {
			return Math.floorDiv(at, this.rate) * this.rate;
		}
		// a cron expression only looks forward: widen a window back from "at" until it
		// holds a tick, then narrow down on the last one
		long window = 1000;
		while (!isTickBetween(at - window, at)) {
			if (window > at) {
				return -1;
			}
			window *= 2;
		}
		long low = at - window;
		long high = at;
		while (high - low > 1) {
			long middle = low + (high - low) / 2;
			if (isTickBetween(middle, at)) {
				low = middle;
			}
			else {
				high = middle;
			}
		}
		return next(low);
	}

	private boolean isTickBetween(long after, long atOrBefore) {
		long next = next(after);
		return next >= 0 && next <= atOrBefore;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof RecurringSchedule schedule && this.rate == schedule.rate
				&& Objects.equals(this.cron, schedule.cron) && Objects.equals(this.zone, schedule.zone);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.cron, this.zone, this.rate);
	}

	@Override
	public String toString() {
		return (this.cron != null) ? "cron '" + this.cron + "' in " + this.zone
				: "fixed rate " + Duration.ofMillis(this.rate);
	}

}
