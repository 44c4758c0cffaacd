package io.redq.queue.recurring;

import java.util.List;

/**
 * Lists, pauses, resumes and triggers the recurring jobs of this application. The paused
 * state is kept in Redis, so every application instance obeys it.
 *
 * <p>
 * Each run of a recurring job carries the header {@value #RUN_HEADER}, which tells why it
 * runs: {@code tick} (a scheduled tick), {@code catch-up} (one run for ticks missed while
 * no instance was scheduling, see {@link MissedTicks#RUN_ONCE}) or {@code trigger}
 * ({@link #trigger(String)}).
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface RecurringJobs {

	/** The job header that tells why a recurring job runs. */
	String RUN_HEADER = "redq-recurring";

	/**
	 * Return every recurring job, by name.
	 * @return the jobs, with their next tick and paused state
	 */
	List<RecurringJobInfo> list();

	/**
	 * Return one recurring job.
	 * @param name the job name
	 * @return the job, with its next tick and paused state
	 * @throws IllegalArgumentException when this application has no recurring job of that
	 * name
	 */
	RecurringJobInfo get(String name);

	/**
	 * Pause a recurring job in every application instance: its ticks are dropped until it
	 * is resumed.
	 * @param name the job name
	 * @return {@code true} when it was running, {@code false} when it was paused already
	 * @throws IllegalArgumentException when this application has no recurring job of that
	 * name
	 */
	boolean pause(String name);

	/**
	 * Resume a paused recurring job in every application instance, from its next tick;
	 * the ticks dropped while it was paused are not caught up.
	 * @param name the job name
	 * @return {@code true} when it was paused, {@code false} when it was running already
	 * @throws IllegalArgumentException when this application has no recurring job of that
	 * name
	 */
	boolean resume(String name);

	/**
	 * Enqueue an extra run of a recurring job at once, paused or not; its ticks are not
	 * affected.
	 * @param name the job name
	 * @return the id of the job enqueued
	 * @throws IllegalArgumentException when this application has no recurring job of that
	 * name
	 */
	String trigger(String name);

}
