package io.redq.queue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where a job is, read from Redis.
 *
 * @param state the job's state
 * @param at when it is due ({@link State#DELAYED}), when its lease expires
 * ({@link State#RESERVED}) or when it died ({@link State#DEAD}); {@code null} otherwise
 * @param redisTime the Redis clock when it was read
 * @author Redq team
 * @since 0.1.0
 */
public record JobStatus(State state, @Nullable Instant at, Instant redisTime) {

	/**
	 * The states of a job.
	 */
	public enum State {

		/** Waiting for its due time. */
		DELAYED,

		/** Waiting for a worker. */
		READY,

		/** Held by a worker under a lease. */
		RESERVED,

		/** Out of attempts, or rejected. */
		DEAD,

		/** Completed, cancelled or never dispatched. */
		NONE

	}

}
