package io.redq.queue.core;

import java.util.List;

import org.springframework.dao.TransientDataAccessException;

/**
 * Thrown when the Redis master took a write but fewer replicas than required confirmed it
 * within the timeout (see
 * {@link io.redq.queue.redis.RedisJobQueueOperations#setReplicasToWaitFor(int, java.time.Duration)}).
 * The write is on the master and stays there; it is lost only if the master fails before
 * its replicas catch up.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ReplicationTimeoutException extends TransientDataAccessException {

	/** How many job ids a message names at most. */
	private static final int NAMED_IDS = 10;

	private final int required;

	private final long confirmed;

	private final List<String> jobIds;

	/**
	 * Create an instance.
	 * @param required how many replicas had to confirm the write
	 * @param confirmed how many did within the timeout
	 * @param message what was written, and what the caller can do
	 */
	public ReplicationTimeoutException(int required, long confirmed, String message) {
		this(required, confirmed, message, List.of());
	}

	/**
	 * Create an instance for the writes of jobs.
	 * @param required how many replicas had to confirm the write
	 * @param confirmed how many did within the timeout
	 * @param message what was written, and what the caller can do
	 * @param jobIds the ids of the jobs the write concerns
	 */
	public ReplicationTimeoutException(int required, long confirmed, String message, List<String> jobIds) {
		super(message);
		this.required = required;
		this.confirmed = confirmed;
		this.jobIds = List.copyOf(jobIds);
	}

	/**
	 * Return this exception for the writes of the given jobs: the same counts, with a
	 * message that names them (the first {@value #NAMED_IDS}).
	 * @param jobIds the ids of the jobs the write concerns
	 * @return the exception
	 */
	public ReplicationTimeoutException forJobs(List<String> jobIds) {
		String named = String.join(", ", jobIds.subList(0, Math.min(NAMED_IDS, jobIds.size())));
		String more = (jobIds.size() > NAMED_IDS) ? " and " + (jobIds.size() - NAMED_IDS) + " more" : "";
		ReplicationTimeoutException ex = new ReplicationTimeoutException(this.required, this.confirmed,
				getMessage() + " Jobs concerned: " + named + more + ".", jobIds);
		ex.initCause(this);
		return ex;
	}

	/**
	 * Return the ids of the jobs whose dispatch or acknowledgement the replicas did not
	 * confirm: they are on the master.
	 * @return the ids, empty when the write was not one of jobs (a lock)
	 */
	public List<String> getJobIds() {
		return this.jobIds;
	}

	/**
	 * Return how many replicas had to confirm the write.
	 * @return the required number
	 */
	public int getRequired() {
		return this.required;
	}

	/**
	 * Return how many replicas confirmed the write within the timeout.
	 * @return the confirmed number
	 */
	public long getConfirmed() {
		return this.confirmed;
	}

}
