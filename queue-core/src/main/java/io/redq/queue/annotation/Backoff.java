package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The wait between attempts of a {@link QueuedJob}:
 * {@code delay * multiplier^(attempt - 1)}, at most {@code maxDelay}, plus a random
 * amount up to {@code jitter}. Every attribute accepts {@code ${...}} placeholders; an
 * empty attribute takes the default from {@code redq.job.backoff.*}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Backoff {

	/**
	 * The wait after the first failed attempt, as a duration such as {@code 1s}.
	 * @return the initial delay
	 */
	String delay() default "";

	/**
	 * The factor applied for each further attempt, as a number of at least 1.
	 * @return the multiplier
	 */
	String multiplier() default "";

	/**
	 * The longest wait, as a duration such as {@code 10m}.
	 * @return the maximum delay
	 */
	String maxDelay() default "";

	/**
	 * The most random time added to each wait, as a duration such as {@code 500ms}.
	 * @return the jitter
	 */
	String jitter() default "";

}
