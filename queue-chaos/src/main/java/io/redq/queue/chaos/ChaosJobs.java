package io.redq.queue.chaos;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;

/**
 * The handler of {@code chaos} jobs: records START, works (sleeps), records DONE, or LOST
 * when it learned that its lease was lost; and of {@code chaos-iteration} jobs, which
 * iterate over items and record each ITEM.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ChaosJobs {

	/** The name of the jobs that iterate over as many items as their payload says. */
	public static final String ITERATION_JOB_NAME = "chaos-iteration";

	private static final long SLICE_MILLIS = 50;

	private static final long ITEM_MILLIS = 10;

	private final Ledger ledger;

	private final long defaultMillis;

	/**
	 * Create the handler.
	 * @param ledger the ledger to record attempts in
	 * @param defaultMillis how long a task works unless it says otherwise
	 */
	public ChaosJobs(Ledger ledger, long defaultMillis) {
		this.ledger = ledger;
		this.defaultMillis = defaultMillis;
	}

	/**
	 * Run one attempt of a task.
	 * @param task the task
	 * @param context the job's context
	 * @throws InterruptedException when the container interrupts the handler
	 */
	@QueuedJob(name = ChaosTask.JOB_NAME, queue = ChaosTask.QUEUE)
	public void run(ChaosTask task, JobContext context) throws InterruptedException {
		this.ledger.record("START", context.getId(), context.getAttempt());
		if (task.halt()) {
			// a poison job: the JVM dies on every attempt, like an OOM kill or a
			// native crash
			Runtime.getRuntime().halt(1);
		}
		long millis = (task.millis() >= 0) ? task.millis() : this.defaultMillis;
		try {
			// work in slices, so that a stalled (SIGSTOPped) worker still has work
			// left when it resumes, and stop early once the lease is lost, as a
			// well-behaved handler should
			for (long worked = 0; worked < millis && !context.isLeaseLost(); worked += SLICE_MILLIS) {
				Thread.sleep(Math.min(SLICE_MILLIS, millis - worked));
			}
		}
		catch (InterruptedException ex) {
			this.ledger.record("INTERRUPTED", context.getId(), context.getAttempt());
			throw ex;
		}
		this.ledger.record(context.isLeaseLost() ? "LOST" : "DONE", context.getId(), context.getAttempt());
	}

	/**
	 * Run one attempt of an iteration over items, each recorded as an ITEM whose id is
	 * {@code <job id>/<item>}: the attempt resumes at the cursor an earlier one kept.
	 * @param items how many items there are
	 * @param context the job's context
	 * @throws Exception when the container interrupts the handler
	 */
	@QueuedJob(name = ITERATION_JOB_NAME, queue = ChaosTask.QUEUE)
	public void iterate(Integer items, JobContext context) throws Exception {
		context.iterate(Integer.class, 0, (item) -> {
			this.ledger.record("ITEM", context.getId() + "/" + item, context.getAttempt());
			Thread.sleep(ITEM_MILLIS);
			return (item + 1 < items) ? item + 1 : null;
		});
	}

}
