package io.redq.queue.redis;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

import io.redq.queue.core.JobDefinition;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.util.ClassUtils;

/**
 * Refuses, at dispatch, a payload that the job's handler in this application cannot take,
 * rather than let the job die on the worker (or, worse, run with a payload Jackson read
 * into empty fields): the payload must be an instance of the handler's payload class (its
 * raw class, for a generic type; type arguments are not checked). A number goes to a
 * handler of any number type, as JSON does not keep the difference (a value out of its
 * range fails on the worker). A {@link JsonNode} goes to any handler, converted on the
 * worker. Jobs known only by name (handled by another application) are checked on the
 * worker that runs them.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class PayloadTypeCheck {

	private PayloadTypeCheck() {
	}

	/**
	 * Check a payload against the job's handler.
	 * @param definition the job
	 * @param payload the payload
	 * @throws IllegalArgumentException when the handler cannot take it
	 */
	static void check(JobDefinition definition, @Nullable Object payload) {
		Class<?> expected = rawClass(definition.payloadType());
		if (expected == null || payload instanceof JsonNode) {
			return;
		}
		if (payload == null) {
			if (expected.isPrimitive()) {
				throw new IllegalArgumentException("Job '" + definition.name() + "' needs a payload: its handler takes "
						+ "a " + expected.getName() + ", and the payload is null");
			}
			return;
		}
		Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(expected);
		if (boxed.isInstance(payload) || (payload instanceof Number && Number.class.isAssignableFrom(boxed))) {
			return;
		}
		throw new IllegalArgumentException("Job '" + definition.name() + "' cannot take a payload of type "
				+ payload.getClass().getName() + ": its handler takes a " + expected.getName() + ". Dispatch a "
				+ expected.getName() + " (or a JsonNode, which the worker converts)");
	}

	private static @Nullable Class<?> rawClass(@Nullable Type type) {
		if (type instanceof Class<?> clazz) {
			// any payload goes to a handler of Object
			return (clazz != Object.class) ? clazz : null;
		}
		if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
			return raw;
		}
		// a type variable or an array of a generic type: left to the worker
		return null;
	}

}
