package io.redq.queue.dashboard;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What the dashboard's views answer alike.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class DashboardJson {

	private DashboardJson() {
	}

	static @Nullable Long millis(@Nullable Instant instant) {
		return (instant != null) ? instant.toEpochMilli() : null;
	}

	static @Nullable String blankToNull(@Nullable String text) {
		return (text != null && !text.isBlank()) ? text : null;
	}

	/**
	 * What a change did: how many jobs it changed, and whether more match (a bulk change
	 * goes on with another request, passing the cutoff, in epoch milliseconds, as
	 * {@code diedBy}).
	 */
	record ChangeJson(String action, long jobs, boolean more, @Nullable Long cutoff) {
	}

}
