package io.redq.queue.core;

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

	private final int required;

	private final long confirmed;

	/**
	 * Create an instance.
	 * @param required how many replicas had to confirm the write
	 * @param confirmed how many did within the timeout
	 * @param message what was written, and what the caller can do
	 */
	public ReplicationTimeoutException(int required, long confirmed, String message) {
		super(message);
		this.required = required;
		this.confirmed = confirmed;
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
