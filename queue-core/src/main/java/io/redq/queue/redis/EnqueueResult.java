package io.redq.queue.redis;

import io.redq.queue.core.Uniqueness;

/**
 * What an enqueue did with one job.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum EnqueueResult {

	/** A job with that id was pending or running: it was kept and the new one dropped. */
	KEPT_EXISTING,

	/** The job was created. */
	CREATED,

	/** A pending job with that id was replaced. */
	REPLACED,

	/**
	 * The job with that id is running: the new one was queued to run after it (see
	 * {@link Uniqueness}).
	 */
	QUEUED

}
