package io.redq.queue.core;

/**
 * Completes the wait for a job's result when Redis holds neither the job nor its result:
 * no job of that id was dispatched to the queue, the job completed without a result, its
 * result expired (results are kept for {@code redq.results.time-to-live}), or it died and
 * its dead entry was trimmed.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.redis.JobResults
 */
public class JobResultUnavailableException extends RuntimeException {

	/**
	 * Create an instance.
	 * @param queue the queue asked
	 * @param id the job id asked
	 */
	public JobResultUnavailableException(String queue, String id) {
		super("No job " + id + " and no result of it in queue '" + queue + "': the id or queue is wrong, the job "
				+ "returned no result, its result expired (kept for redq.results.time-to-live), or it died and was "
				+ "trimmed from the dead jobs. Wait for a result before it expires, or keep results longer");
	}

}
