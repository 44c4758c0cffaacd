package io.redq.queue.core;

/**
 * How long a caller-chosen id stays unique: what a dispatch with that id does while the
 * job with that id runs.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum Uniqueness {

	/** Until the job completes or dies: a dispatch while it runs is dropped. */
	UNTIL_COMPLETED,

	/**
	 * Until the job starts: a dispatch while it runs is queued and becomes the job with
	 * that id once the running one completes or dies (one queued dispatch per id; the
	 * {@link DuplicatePolicy} decides between several).
	 */
	UNTIL_STARTED

}
