package io.redq.queue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where a job is, read from Redis.
 *
 * @param state the job's state
 * @param at when it is due ({@link State#DELAYED}), when its lease expires
 * ({@link State#RESERVED}), when it died ({@link State#DEAD}) or when it completed
 * ({@link State#COMPLETED}); {@code null} otherwise
 * @param redisTime the Redis clock when it was read
 * @author Redq team
 * @since 0.1.0
 */
public record JobStatus(State state, @Nullable Instant at, Instant redisTime) {

	/**
	 * The states of a job.
	 */
	public enum State {

		/**
		 * Waiting for its due time, or, without one, parked until a job that holds its
		 * exclusive key or a place under its running limit leaves.
		 */
		DELAYED,

		/** Waiting for a worker. */
		READY,

		/** Held by a worker under a lease. */
		RESERVED,

		/** Out of attempts, or rejected. */
		DEAD,

		/**
		 * Completed, and among the latest completed ids kept by
		 * {@code redq.completed.max-size}.
		 */
		COMPLETED,

		/** Completed and no longer kept, cancelled, or never dispatched. */
		NONE

	}

}
