package io.redq.queue.redis;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON that Redq writes for itself and reads back: job envelopes in Redis, instance
 * descriptions, and the rows of {@code queue-outbox}. Its mapper is built here with fixed
 * settings, never taken from the application, so that a change of the application's
 * Jackson settings ({@code spring.jackson.*}) between two deploys changes how payloads
 * are written (they are the application's values, converted with its mapper) but never
 * how Redq writes or reads what surrounds them; the scripts, which read a body's first
 * fields, depend on that too.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class WireFormat {

	private static final JsonMapper JSON_MAPPER = JsonMapper.builder()
		// properties in the order their types declare them, which the scripts rely on
		.disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
		.enable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
		// a field written by a newer version is skipped by an older one
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		// a payload's decimals keep their digits and scale until the handler's type
		// reads them
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	private WireFormat() {
	}

	/**
	 * Return the mapper that writes and reads Redq's own JSON.
	 * @return the mapper, shared and immutable
	 */
	public static JsonMapper jsonMapper() {
		return JSON_MAPPER;
	}

}
