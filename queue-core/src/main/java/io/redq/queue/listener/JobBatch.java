package io.redq.queue.listener;

import java.util.List;

import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchStatus;

/**
 * The batch a running job is a member or a callback of, as its handler reads it through
 * {@link JobContext#getBatch()}: its counts and the results of its members, read from
 * Redis at each call.
 *
 * <p>
 * Members' results are kept in their own queues for {@code redq.results.time-to-live}
 * from each member's completion, not until the batch ends: set it longer than a batch
 * runs, plus the time its callbacks take to start, or the results of the first members
 * read as empty.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.core.BatchRequest
 */
public interface JobBatch {

	/**
	 * Return the batch id.
	 * @return the id
	 */
	String getId();

	/**
	 * Return the batch's state and counts.
	 * @return the batch as Redis holds it now
	 * @throws IllegalStateException when the batch ended longer ago than
	 * {@code redq.batches.linger} and is no longer kept
	 */
	BatchStatus getStatus();

	/**
	 * Return a page of the results of the members that succeeded, in the order their
	 * successes reached the batch (a member's success reaches it within about a migrator
	 * pass). A callback sees every member that succeeded; a member reading its siblings
	 * sees those that succeeded so far. Page with {@code offset += count} until a page is
	 * shorter than {@code count}.
	 * @param <T> the results' type
	 * @param type the results' type, which their JSON is read as
	 * @param offset how many to skip
	 * @param count how many to return, at most 1,000
	 * @return the members and their results: each empty when its handler returned
	 * nothing, when its result expired, or for a nested batch or chain
	 * @throws IllegalArgumentException when a result cannot be read as {@code type}, or
	 * the page is out of range
	 */
	<T> List<BatchMemberResult<T>> getResults(Class<T> type, int offset, int count);

}
