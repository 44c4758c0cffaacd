package io.redq.queue.recurring;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A recurring job as {@link RecurringJobs#list()} shows it.
 *
 * @param name the job name
 * @param queue the queue its runs go to
 * @param schedule when it ticks (cron expression and zone, or fixed rate)
 * @param missedTicks what happens to ticks missed while no instance scheduled it
 * @param nextTick the next tick on the Redis clock, or {@code null} when there is none
 * @param paused whether it is paused in every application instance
 * @author Redq team
 * @since 0.1.0
 */
public record RecurringJobInfo(String name, String queue, RecurringSchedule schedule, MissedTicks missedTicks,
		@Nullable Instant nextTick, boolean paused) {

}
