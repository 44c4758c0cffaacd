package io.redq.queue.listener;

import io.redq.queue.core.JobDefinition;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Runs jobs of one {@link JobDefinition}. {@code @QueuedJob} methods are adapted to this
 * interface.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobHandler {

	/**
	 * Return the job this handler runs.
	 * @return the definition
	 */
	JobDefinition getDefinition();

	/**
	 * Convert a job's JSON payload to what {@link #handle} takes.
	 * @param payload the payload as JSON
	 * @return the payload
	 * @throws JobRejectedException when the payload cannot be read (the job goes to dead)
	 */
	@Nullable Object readPayload(@Nullable JsonNode payload);

	/**
	 * Run one attempt of a job. Returning normally completes the job; throwing fails the
	 * attempt (it is retried with backoff unless attempts are used up or the exception is
	 * a {@link JobRejectedException}).
	 * @param payload the payload, as returned by {@link #readPayload}
	 * @param context the job's context
	 * @throws Exception when the attempt failed
	 */
	void handle(@Nullable Object payload, JobContext context) throws Exception;

}
