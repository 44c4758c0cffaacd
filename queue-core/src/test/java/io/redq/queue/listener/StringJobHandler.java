package io.redq.queue.listener;

import io.redq.queue.core.JobDefinition;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A job handler for tests built without an application context: a definition, string
 * payloads, and what handling a job does.
 *
 * @param definition the job's definition
 * @param handling what handling a job does
 * @author Redq team
 */
public record StringJobHandler(JobDefinition definition, Handling handling) implements JobHandler {

	@Override
	public JobDefinition getDefinition() {
		return this.definition;
	}

	@Override
	public @Nullable Object readPayload(@Nullable JsonNode payload) {
		return (payload != null) ? payload.asString() : null;
	}

	@Override
	public @Nullable Object handle(@Nullable Object payload, JobContext context) throws Exception {
		this.handling.handle((String) payload, context);
		return null;
	}

	/**
	 * What handling a job does.
	 */
	@FunctionalInterface
	public interface Handling {

		/**
		 * Handle one attempt of a job.
		 * @param payload the payload
		 * @param context the attempt
		 * @throws Exception to fail the attempt
		 */
		void handle(@Nullable String payload, JobContext context) throws Exception;

	}

}
