package io.redq.queue.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Receives what the dispatcher and the listener containers do, e.g. to record metrics.
 * Every method does nothing by default.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobMetrics {

	/** Records nothing. */
	JobMetrics NONE = new JobMetrics() {
	};

	/**
	 * A job entered its queue, by whatever path: a dispatch whose job was created or
	 * queued behind the running one, a job sent after its transaction committed or
	 * relayed from an outbox, a batch member or callback, a chain step, a recurring tick.
	 * Told once per job, by the instance that enqueued it, after Redis took it; never for
	 * a job kept, dropped or replaced in favour of one with its id, nor for a tick
	 * enqueued already.
	 * @param queue the queue
	 * @param job the job name
	 */
	default void dispatched(String queue, String job) {
	}

	/**
	 * An attempt of a job ended.
	 * @param queue the queue
	 * @param job the job name, {@code unknown} when its envelope could not be read
	 * @param outcome how it ended
	 * @param error what failed it, or {@code null}
	 * @param processing how long the handler ran
	 * @param wait how long the job waited from its due time until it started
	 */
	default void processed(String queue, String job, Outcome outcome, @Nullable Throwable error, Duration processing,
			Duration wait) {
	}

	/**
	 * How an attempt ended.
	 */
	enum Outcome {

		/** The handler returned: the job is done. */
		COMPLETED,

		/** The attempt failed and the job will be tried again. */
		RETRIED,

		/** The job is dead: out of attempts, rejected or unreadable. */
		DEAD,

		/** The worker lost the job's lease: its result is discarded. */
		LEASE_LOST

	}

}
