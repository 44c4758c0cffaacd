package io.redq.queue.listener;

import java.util.Collection;
import java.util.Set;

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
	 * Run one attempt of a job. Returning normally completes the job, with the value
	 * returned as its result (kept for callers that wait for it, see
	 * {@link io.redq.queue.redis.JobResults}; {@code null} keeps nothing); throwing fails
	 * the attempt, and the {@link JobErrorHandler} decides whether it is retried (a
	 * {@link JobRejectedException} or a {@link #getNotRetryableExceptions() not-retryable
	 * exception} ends it at once).
	 * @param payload the payload, as returned by {@link #readPayload}
	 * @param context the job's context
	 * @return the job's result, or {@code null} for none
	 * @throws Exception when the attempt failed
	 */
	@Nullable Object handle(@Nullable Object payload, JobContext context) throws Exception;

	/**
	 * Return the error handler that decides this job's retries instead of the
	 * container's.
	 * <p>
	 * Default {@code null}: the container's.
	 * @return the error handler, or {@code null}
	 */
	default @Nullable JobErrorHandler getErrorHandler() {
		return null;
	}

	/**
	 * Return the exception types that end this job without a retry, whatever the error
	 * handler: a failure whose exception, or one of its causes, is an instance of one of
	 * them dies on that attempt.
	 * <p>
	 * Default none.
	 * @return the exception types
	 */
	default Collection<Class<? extends Throwable>> getNotRetryableExceptions() {
		return Set.of();
	}

}
