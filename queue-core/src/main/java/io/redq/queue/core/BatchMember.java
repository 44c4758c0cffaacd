package io.redq.queue.core;

import org.jspecify.annotations.Nullable;

/**
 * A member of a batch: where to find it.
 *
 * @param queue the member's queue, or {@code null} for a member that is a batch or a
 * chain
 * @param id the member's job id, or the id of the batch or chain it is
 * @param kind what the member is
 * @author Redq team
 * @since 0.1.0
 */
public record BatchMember(@Nullable String queue, String id, Kind kind) {

	/**
	 * Create a member that is a job.
	 * @param queue the job's queue
	 * @param id the job id
	 */
	public BatchMember(String queue, String id) {
		this(queue, id, Kind.JOB);
	}

	/**
	 * What a member of a batch is.
	 */
	public enum Kind {

		/** A job: read it from its queue. */
		JOB,

		/** A batch of its own: read it with {@link JobDispatcher#findBatch(String)}. */
		BATCH,

		/** A chain: read it with {@link JobDispatcher#findChain(String)}. */
		CHAIN

	}

}
