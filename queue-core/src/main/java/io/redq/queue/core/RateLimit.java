package io.redq.queue.core;

import java.time.Duration;

import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.Assert;

/**
 * At most {@code permits} job starts within any sliding {@code window}, across all
 * application instances.
 *
 * @param permits the starts allowed per window
 * @param window the window
 * @author Redq team
 * @since 0.1.0
 */
public record RateLimit(int permits, Duration window) {

	/**
	 * Create an instance, checking the values.
	 */
	public RateLimit {
		Assert.isTrue(permits >= 1, "A rate limit must allow at least 1 start per window");
		Assert.isTrue(window.toMillis() >= 1, "A rate limit window must be at least 1ms");
	}

	/**
	 * Parse {@code <permits>/<window>}, e.g. {@code 100/1s} or {@code 5/1m}.
	 * @param text the rate limit
	 * @return the rate limit
	 * @throws IllegalArgumentException when the text does not have that form
	 */
	public static RateLimit parse(String text) {
		int slash = text.indexOf('/');
		Assert.isTrue(slash > 0, () -> "Rate limit '" + text + "' must look like <permits>/<window>, e.g. 100/1s");
		return new RateLimit(Integer.parseInt(text.substring(0, slash).trim()),
				DurationFormatterUtils.detectAndParse(text.substring(slash + 1).trim()));
	}

}
