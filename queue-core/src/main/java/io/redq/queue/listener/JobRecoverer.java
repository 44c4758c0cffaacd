package io.redq.queue.listener;

/**
 * Called when a job dies, after it was recorded in its queue's dead set: to alert
 * someone, or to keep the job elsewhere too.
 *
 * <pre class="code">
 * new DefaultJobErrorHandler((job, exception) -&gt; alerts.jobDied(job.getId(), exception))
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 * @see DefaultJobErrorHandler
 */
@FunctionalInterface
public interface JobRecoverer {

	/**
	 * Act on a job that died. Runs on the thread that settled the job (a worker, or the
	 * container's scheduler for a timeout): keep it short, or hand the work off. An
	 * exception thrown here is logged and changes nothing: the job stays dead.
	 * @param job the dead job
	 * @param exception what failed its last attempt: what the handler threw, or a
	 * {@link java.util.concurrent.TimeoutException} when it ran past its timeout
	 */
	void recover(JobContext job, Throwable exception);

}
