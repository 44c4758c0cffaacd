package io.redq.queue.core;

import org.jspecify.annotations.Nullable;

/**
 * Validation of queue names and job ids, which become parts of Redis keys and members.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class QueueNames {

	/** The longest queue name accepted. */
	public static final int MAX_QUEUE_NAME_LENGTH = 100;

	/** The longest job id accepted. */
	public static final int MAX_ID_LENGTH = 200;

	private QueueNames() {
	}

	/**
	 * Check a queue name: not empty, at most {@value #MAX_QUEUE_NAME_LENGTH} characters,
	 * and free of <code>{</code>, <code>}</code> (they would break the Redis Cluster hash
	 * tag) and control characters.
	 * @param queue the queue name
	 * @return the queue name
	 * @throws IllegalArgumentException when the name is not valid, saying why
	 */
	public static String validate(String queue) {
		return validateName("queue", queue);
	}

	/**
	 * Check a name that becomes a Redis Cluster hash tag, such as a queue or lock name,
	 * by the rules of {@link #validate(String)}.
	 * @param kind what the name names, for the message, e.g. {@code lock}
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException when the name is not valid, saying why
	 */
	public static String validateName(String kind, String name) {
		String problem = problem(name, MAX_QUEUE_NAME_LENGTH, true);
		if (problem != null) {
			throw new IllegalArgumentException("Invalid " + kind + " name '" + printable(name) + "': " + problem
					+ ". Use letters, digits and characters such as '-', '_' or '.'");
		}
		return name;
	}

	/**
	 * Check a key prefix, which starts every Redis key of the queues and locks: not
	 * empty, at most {@value #MAX_QUEUE_NAME_LENGTH} characters, and free of
	 * <code>{</code>, <code>}</code> (Redis Cluster would hash the keys of one queue by
	 * the prefix's braces, into different slots) and control characters.
	 * @param prefix the key prefix
	 * @return the key prefix
	 * @throws IllegalArgumentException when the prefix is not valid, saying why
	 */
	public static String validateKeyPrefix(String prefix) {
		String problem = problem(prefix, MAX_QUEUE_NAME_LENGTH, true);
		if (problem != null) {
			throw new IllegalArgumentException("Invalid key prefix '" + printable(prefix) + "': " + problem
					+ ". Use letters, digits and characters such as ':', '-', '_' or '.'");
		}
		return prefix;
	}

	/**
	 * Check a caller-chosen job id: not empty, at most {@value #MAX_ID_LENGTH}
	 * characters, no control characters.
	 * @param id the job id
	 * @return the id
	 * @throws IllegalArgumentException when the id is not valid, saying why
	 */
	public static String validateId(String id) {
		String problem = problem(id, MAX_ID_LENGTH, false);
		if (problem != null) {
			throw new IllegalArgumentException("Invalid job id '" + printable(id) + "': " + problem);
		}
		return id;
	}

	private static @Nullable String problem(String value, int maxLength, boolean braces) {
		if (value.isEmpty()) {
			return "it is empty";
		}
		if (value.length() > maxLength) {
			return "it is " + value.length() + " characters long, the limit is " + maxLength;
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.isISOControl(c)) {
				return "it contains the control character U+" + String.format("%04X", (int) c);
			}
			if (braces && (c == '{' || c == '}')) {
				return "it contains '" + c + "', which would break the Redis Cluster hash tag";
			}
		}
		return null;
	}

	private static String printable(String value) {
		StringBuilder out = new StringBuilder();
		value.codePoints()
			.limit(MAX_ID_LENGTH)
			.forEach(
					(c) -> out.append(Character.isISOControl(c) ? String.format("\\u%04X", c) : Character.toString(c)));
		return (value.length() > MAX_ID_LENGTH) ? out + "..." : out.toString();
	}

}
