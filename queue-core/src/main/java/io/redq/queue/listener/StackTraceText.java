package io.redq.queue.listener;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * A failure's stack trace as kept with its job, in the form the JVM prints, bounded: at
 * most {@value #MAX_FRAMES} frames of each exception in the chain of causes (frames a
 * cause shares with the exception it caused are counted, as the JVM does, not repeated),
 * and at most {@value #MAX_LENGTH} characters in all, trimmed with a marker. The cap on
 * each exception's frames leaves room for the causes below it, down to the root cause.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class StackTraceText {

	/** The most characters a stack trace keeps. */
	static final int MAX_LENGTH = 4000;

	/** The most frames kept of each exception in the chain of causes. */
	static final int MAX_FRAMES = 20;

	/** The most exceptions of a chain of causes written. */
	static final int MAX_CAUSES = 10;

	static final String TRIMMED = "\n\t... (trimmed to " + MAX_LENGTH + " characters)";

	private StackTraceText() {
	}

	static String of(Throwable ex) {
		StringBuilder text = new StringBuilder();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		StackTraceElement[] enclosing = new StackTraceElement[0];
		int depth = 0;
		for (Throwable current = ex; current != null && seen.add(current); current = current.getCause()) {
			if (depth++ == MAX_CAUSES) {
				text.append("\n\t... (more causes left out)");
				break;
			}
			if (current != ex) {
				text.append("\nCaused by: ");
			}
			text.append(current);
			StackTraceElement[] frames = current.getStackTrace();
			int shared = shared(frames, enclosing);
			int own = frames.length - shared;
			for (int i = 0; i < Math.min(own, MAX_FRAMES); i++) {
				text.append("\n\tat ").append(frames[i]);
			}
			if (own > MAX_FRAMES) {
				text.append("\n\t... ").append(own - MAX_FRAMES).append(" frames left out");
			}
			if (shared > 0) {
				text.append("\n\t... ").append(shared).append(" more");
			}
			enclosing = frames;
		}
		return (text.length() > MAX_LENGTH) ? text.substring(0, MAX_LENGTH - TRIMMED.length()) + TRIMMED
				: text.toString();
	}

	// how many frames at the bottom a cause has in common with the exception it caused
	private static int shared(StackTraceElement[] frames, StackTraceElement[] enclosing) {
		int i = frames.length - 1;
		int j = enclosing.length - 1;
		int shared = 0;
		while (i >= 0 && j >= 0 && frames[i].equals(enclosing[j])) {
			i--;
			j--;
			shared++;
		}
		return shared;
	}

}
