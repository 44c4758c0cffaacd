package io.redq.queue.transaction;

import java.util.List;

import io.redq.queue.core.JobRequest;

/**
 * Where the jobs dispatched inside a transaction are written, in that transaction,
 * instead of being sent after it commits: a table of the application's database that a
 * relay moves to Redis, such as the {@code queue-outbox} module's. Set one on a
 * {@link TransactionAwareJobDispatcher}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobOutbox {

	/**
	 * Check a request and write its job as it will be stored, at the dispatch itself, so
	 * that bad input fails the caller inside its transaction.
	 * @param request the job and its options, with its id
	 * @return the job as it will be stored
	 * @throws IllegalArgumentException when the request is invalid, as for
	 * {@link io.redq.queue.core.JobDispatcher#dispatch(JobRequest)}
	 */
	Entry prepare(JobRequest request);

	/**
	 * Store the jobs of a transaction, in the order they were dispatched, in that
	 * transaction just before it commits. A failure rolls the transaction back.
	 * @param entries the prepared jobs, at least one
	 */
	void write(List<Entry> entries);

	/**
	 * Called once a transaction that wrote jobs has committed, e.g. to wake a relay.
	 */
	default void committed() {
	}

	/**
	 * A job prepared for the outbox, opaque to the dispatcher.
	 */
	interface Entry {

	}

}
