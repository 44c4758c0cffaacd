package io.redq.queue.chaos;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;

/**
 * The handler of {@code chaos-other} jobs, in a queue of their own (another Redis Cluster
 * slot): runs a task as {@link ChaosJobs} does. Only with {@code chaos.other-queue=true},
 * for scenarios whose work crosses queues.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class OtherQueueJobs {

	/** The name the jobs are dispatched under. */
	public static final String JOB_NAME = "chaos-other";

	/** The queue the jobs are dispatched to. */
	public static final String QUEUE = "chaos-other";

	private final ChaosJobs jobs;

	/**
	 * Create the handler.
	 * @param jobs the handler of {@code chaos} jobs, which runs these too
	 */
	public OtherQueueJobs(ChaosJobs jobs) {
		this.jobs = jobs;
	}

	/**
	 * Run one attempt of a task.
	 * @param task the task
	 * @param context the job's context
	 * @throws InterruptedException when the container interrupts the handler
	 */
	@QueuedJob(name = JOB_NAME, queue = QUEUE)
	public void run(ChaosTask task, JobContext context) throws InterruptedException {
		this.jobs.run(task, context);
	}

}
