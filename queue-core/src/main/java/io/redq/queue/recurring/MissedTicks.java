package io.redq.queue.recurring;

/**
 * What happens to the ticks of a recurring job that came due while no application
 * instance was scheduling it: all instances were down, or the running schedulers were
 * more than {@code redq.recurring.max-lateness} behind (a suspended machine, Redis
 * unreachable). Decided from the latest tick recorded in Redis when a scheduler starts.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum MissedTicks {

	/**
	 * Run the job once, at once, for any number of missed ticks. The run carries the
	 * latest missed tick.
	 */
	RUN_ONCE,

	/** Do not run the missed ticks; wait for the next tick. */
	SKIP

}
