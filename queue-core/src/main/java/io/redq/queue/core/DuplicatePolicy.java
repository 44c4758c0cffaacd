package io.redq.queue.core;

/**
 * What a dispatch with a caller-chosen id does when a job with that id is already pending
 * (ready or delayed). A job that is running is never touched; a dead job does not block
 * its id.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum DuplicatePolicy {

	/** Keep the pending job as it is and drop the new dispatch. */
	KEEP,

	/**
	 * Replace the pending job's payload and due time with the new dispatch's; it starts
	 * with fresh attempts.
	 */
	REPLACE,

	/**
	 * Replace the pending job's payload but keep its due time, with fresh attempts:
	 * repeated dispatches collapse into one run with the last payload (see
	 * {@link JobRequest.Builder#debounce(String, java.time.Duration)}).
	 */
	REPLACE_PAYLOAD

}
