package io.redq.queue.recurring;

import io.redq.queue.core.JobDefinition;

/**
 * A job that is enqueued on a schedule.
 *
 * @param job the job: its name, queue and options
 * @param schedule when it ticks
 * @param missedTicks what happens to ticks missed while no instance scheduled it
 * @author Redq team
 * @since 0.1.0
 */
public record RecurringJobDefinition(JobDefinition job, RecurringSchedule schedule, MissedTicks missedTicks) {

	/**
	 * Return the job name.
	 * @return the name
	 */
	public String name() {
		return this.job.name();
	}

}
