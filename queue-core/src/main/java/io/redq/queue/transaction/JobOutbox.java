package io.redq.queue.transaction;

import java.time.Instant;
import java.util.List;

import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.PreparedBatch;
import io.redq.queue.redis.PreparedChain;

/**
 * Where the jobs dispatched inside a transaction, and the timer calls made in it, are
 * written, in that transaction, instead of being sent after it commits: a table of the
 * application's database that a relay applies to Redis in order, such as the
 * {@code queue-outbox} module's. Set one on a {@link TransactionAwareJobDispatcher}.
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
	 * Write a batch as it will be stored: one entry, so that the relay creates all of it
	 * or none of it.
	 * @param batch the batch, prepared under its final id
	 * @return the batch as it will be stored
	 */
	Entry prepareBatch(PreparedBatch batch);

	/**
	 * Write a chain as it will be stored: one entry, so that the relay creates all of it
	 * or none of it.
	 * @param chain the chain, prepared under its final id
	 * @return the chain as it will be stored
	 */
	Entry prepareChain(PreparedChain chain);

	/**
	 * Check and write a {@link io.redq.queue.core.JobDispatcher#cancel cancel}.
	 * @param queue the queue
	 * @param id the job id
	 * @return the call as it will be stored
	 * @throws IllegalArgumentException when the queue name or id is invalid
	 */
	Entry prepareCancel(String queue, String id);

	/**
	 * Check and write a {@link io.redq.queue.core.JobDispatcher#cancelTimer cancelTimer}.
	 * @param jobName the job name
	 * @param key the business key
	 * @return the call as it will be stored
	 * @throws IllegalArgumentException when no job has that name
	 */
	Entry prepareCancelTimer(String jobName, Object key);

	/**
	 * Check and write a {@link io.redq.queue.core.JobDispatcher#reschedule reschedule}.
	 * @param jobName the job name
	 * @param key the business key
	 * @param at the new time the timer fires
	 * @return the call as it will be stored
	 * @throws IllegalArgumentException when no job has that name
	 */
	Entry prepareReschedule(String jobName, Object key, Instant at);

	/**
	 * Store the entries of a transaction, in the order they were made, in that
	 * transaction. A failure rolls the transaction back.
	 * @param entries the prepared entries, at least one
	 * @throws IllegalStateException when the outbox cannot write in the transaction, e.g.
	 * when the transaction runs on another database
	 */
	void write(List<Entry> entries);

	/**
	 * Store entries made after their transaction committed (from a
	 * {@code TransactionSynchronization#afterCommit} callback), in a transaction of their
	 * own, so that they are applied in order after the committed ones.
	 * @param entries the prepared entries, at least one
	 */
	void writeAfterCommit(List<Entry> entries);

	/**
	 * Called once a transaction that wrote entries has committed, e.g. to wake a relay.
	 */
	default void committed() {
	}

	/**
	 * A job or timer call prepared for the outbox, opaque to the dispatcher, which tells
	 * it once whether it was stored: for the dispatch interceptors a job met when it was
	 * prepared.
	 */
	interface Entry {

		/**
		 * Called once the transaction that wrote this entry has committed: the relay
		 * applies it.
		 */
		default void stored() {
		}

		/**
		 * Called when this entry is not stored: its transaction or savepoint rolled back,
		 * or it could not be written.
		 * @param reason why
		 */
		default void discarded(Exception reason) {
		}

	}

}
