package io.redq.queue.chaos;

/**
 * The payload of a {@code chaos} job.
 *
 * @param millis how long the handler works, or a negative value for the worker's default
 * ({@code chaos.handler-millis})
 * @param halt whether the handler halts the worker JVM on every attempt (a poison job)
 * @author Redq team
 * @since 0.1.0
 */
public record ChaosTask(long millis, boolean halt) {

	/** The name the jobs are dispatched under. */
	public static final String JOB_NAME = "chaos";

	/** The queue the jobs are dispatched to. */
	public static final String QUEUE = "chaos";

	/**
	 * A task that works for the worker's default duration.
	 * @return the task
	 */
	public static ChaosTask standard() {
		return new ChaosTask(-1, false);
	}

}
