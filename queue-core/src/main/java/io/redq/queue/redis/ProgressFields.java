package io.redq.queue.redis;

/**
 * The fields of a job's progress hash (see {@link QueueKeys#progress(String)}), which
 * {@link ProgressOperations#writeProgress} writes and
 * {@link ProgressOperations#readProgress} reads.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class ProgressFields {

	/** The fraction done, from 0 to 1. */
	public static final String FRACTION = "f";

	/** The handler's message. */
	public static final String MESSAGE = "m";

	/** How many writes the run that wrote last made. */
	public static final String WRITES = "n";

	/** The cursor the next attempt resumes at, as JSON. */
	public static final String CURSOR = "c";

	private static final String STEP = "s:";

	private ProgressFields() {
	}

	/**
	 * Return the field present once the step of the given name finished.
	 * @param name the step's name
	 * @return the field
	 */
	public static String step(String name) {
		return STEP + name;
	}

}
