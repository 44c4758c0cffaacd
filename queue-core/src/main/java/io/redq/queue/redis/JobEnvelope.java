package io.redq.queue.redis;

import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.redq.queue.core.JobPriority;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A job as stored in Redis: plain JSON so that programs in any language can read and
 * write it, in Redq's own format ({@link WireFormat}): the payload is the application's
 * value as its mapper converts it, the rest does not depend on the application's Jackson
 * settings. The job type is resolved from {@code job}, a registered name, never from a
 * class name. The id is the field of the job in the queue's {@code jobs} hash and the
 * queue is named by the key, so neither is repeated here; unknown properties are ignored.
 *
 * @param createdAt when the job was enqueued (epoch ms, Redis clock; set by the enqueue
 * script)
 * @param availableAt when the job became or becomes ready (epoch ms, Redis clock; set by
 * the enqueue script)
 * @param priority the job's priority level, absent for the default (see
 * {@link io.redq.queue.core.JobPriority}); the first field of a body, where the enqueue
 * script reads it
 * @param group the job's group, absent for none; right after the priority (or first),
 * where the enqueue script reads it
 * @param job the job name
 * @param maxAttempts how many times the job is tried before it dies; when absent, the
 * handler's setting
 * @param timeout how long one attempt may run in milliseconds, 0 for no limit; when
 * absent, the handler's setting
 * @param headers string headers
 * @param payload the payload
 * @author Redq team
 * @since 0.1.0
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({ "createdAt", "availableAt", "priority", "group", "job", "maxAttempts", "timeout", "headers",
		"payload" })
public record JobEnvelope(@Nullable Long createdAt, @Nullable Long availableAt, @Nullable Integer priority,
		@Nullable String group, String job, @Nullable Integer maxAttempts, @Nullable Long timeout,
		@Nullable Map<String, String> headers, @Nullable JsonNode payload) {

	private static final String NAME_FIELD = "\"job\":\"";

	/**
	 * Create the envelope of a job to enqueue; the enqueue script sets its times.
	 * @param job the job name
	 * @param maxAttempts how many times the job is tried before it dies
	 * @param timeout how long one attempt may run, 0 for no limit
	 * @param headers string headers
	 * @param payload the payload as JSON
	 * @return the envelope
	 */
	public static JobEnvelope of(String job, int maxAttempts, Duration timeout, Map<String, String> headers,
			@Nullable JsonNode payload) {
		return of(job, JobPriority.DEFAULT, null, maxAttempts, timeout, headers, payload);
	}

	/**
	 * Create the envelope of a job to enqueue at a priority level and in a group; the
	 * enqueue script sets its times.
	 * @param job the job name
	 * @param priority the priority level
	 * @param group the group, or {@code null} for none
	 * @param maxAttempts how many times the job is tried before it dies
	 * @param timeout how long one attempt may run, 0 for no limit
	 * @param headers string headers
	 * @param payload the payload as JSON
	 * @return the envelope
	 */
	public static JobEnvelope of(String job, int priority, @Nullable String group, int maxAttempts, Duration timeout,
			Map<String, String> headers, @Nullable JsonNode payload) {
		// the default level is left out, so that a job of that level is written as before
		// levels existed
		return new JobEnvelope(null, null, (priority != JobPriority.DEFAULT) ? priority : null, group, job, maxAttempts,
				timeout.toMillis(), headers, payload);
	}

	/**
	 * Write this envelope as the enqueue scripts take it: JSON without its opening brace,
	 * since the script prepends the Redis-clock times to the object. It is written in
	 * Redq's own format ({@link WireFormat}), whatever the application's Jackson
	 * settings.
	 * @return the body of an {@link EnqueueCommand}
	 */
	public String body() {
		return WireFormat.jsonMapper().writeValueAsString(this).substring(1);
	}

	/**
	 * Return the group of a job from the body of its {@link EnqueueCommand}, read only
	 * when the body starts with a priority or a group, as it does for a job in a group.
	 * @param body the body
	 * @return the group, or {@code null} for none
	 */
	static @Nullable String groupOf(String body) {
		if (!body.startsWith("\"priority\"") && !body.startsWith("\"group\"")) {
			return null;
		}
		JsonNode group = WireFormat.jsonMapper().readTree("{" + body).get("group");
		return (group != null && group.isString()) ? group.asString() : null;
	}

	/**
	 * Return the job name from the body of its {@link EnqueueCommand}, without reading
	 * the rest: the name comes after the priority and the group, the only fields before
	 * it, which hold no unescaped quote.
	 * @param body the body
	 * @return the job name
	 */
	static String nameOf(String body) {
		int start = body.indexOf(NAME_FIELD);
		if (start >= 0) {
			start += NAME_FIELD.length();
			int end = body.indexOf('"', start);
			// a name with an escape is read as JSON
			if (end >= 0 && body.lastIndexOf('\\', end) < start) {
				return body.substring(start, end);
			}
		}
		return WireFormat.jsonMapper().readTree("{" + body).get("job").asString();
	}

	/**
	 * Read an envelope as Redis stores it.
	 * @param json the stored JSON
	 * @return the envelope
	 * @throws tools.jackson.core.JacksonException when the JSON is not an envelope
	 */
	public static JobEnvelope read(String json) {
		return WireFormat.jsonMapper().readValue(json, JobEnvelope.class);
	}

}
