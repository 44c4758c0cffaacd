package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.redq.queue.recurring.MissedTicks;

/**
 * Enqueues a {@link QueuedJob} on a schedule: a cron expression in a time zone, or a
 * fixed rate. Each tick is enqueued once across all application instances, and the job's
 * queue runs it like any other job:
 *
 * <pre class="code">
 * &#64;QueuedJob(queue = "reports")
 * &#64;Recurring(cron = "0 0 6 * * MON-FRI", zone = "Europe/Berlin")
 * void dailyReport(Instant tick) { ... }
 * </pre>
 *
 * <p>
 * The method takes no payload or an {@link java.time.Instant}: the tick's time (for a
 * catch-up run, the latest missed tick; for a triggered run, the time of the trigger),
 * and, optionally, a {@link io.redq.queue.listener.JobContext}. Set exactly one of
 * {@link #cron()} and {@link #fixedRate()}. The string attributes accept {@code ${...}}
 * placeholders.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.recurring.RecurringJobs
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Recurring {

	/**
	 * The value of {@link #cron()} that turns the schedule off, e.g. through
	 * {@code "${report.cron:-}"}: the job stays a plain {@code @QueuedJob}.
	 */
	String DISABLED = "-";

	/**
	 * A cron expression as Spring's {@code CronExpression} reads it: six fields, seconds
	 * first ({@code "0 0/15 * * * *"}), or a macro such as {@code "@daily"}. {@code "-"}
	 * turns the schedule off.
	 * @return the cron expression
	 */
	String cron() default "";

	/**
	 * The time zone of {@link #cron()}, e.g. {@code Europe/Berlin}. Defaults to
	 * {@code redq.recurring.zone} (UTC). Not allowed with {@link #fixedRate()}.
	 * @return the zone id
	 */
	String zone() default "";

	/**
	 * A fixed rate, as a duration such as {@code 30s}, {@code 500ms} or {@code PT1H}. The
	 * ticks are the multiples of the rate since the Unix epoch, so {@code 15m} ticks at
	 * :00, :15, :30 and :45 of every UTC hour.
	 * @return the rate
	 */
	String fixedRate() default "";

	/**
	 * What happens to ticks missed while no application instance was scheduling the job.
	 * @return the policy
	 */
	MissedTicks missedTicks() default MissedTicks.RUN_ONCE;

}
