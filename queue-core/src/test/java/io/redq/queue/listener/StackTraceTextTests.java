package io.redq.queue.listener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link StackTraceText}.
 *
 * @author Redq team
 */
class StackTraceTextTests {

	@Test
	void writesTheExceptionItsFramesAndItsCausesAsTheJvmDoes() {
		IllegalStateException ex = new IllegalStateException("outer", root());
		String text = StackTraceText.of(ex);
		assertThat(text).startsWith("java.lang.IllegalStateException: outer\n\tat io.redq.queue.listener."
				+ "StackTraceTextTests.writesTheExceptionItsFramesAndItsCausesAsTheJvmDoes(StackTraceTextTests.java:");
		assertThat(text).contains("\nCaused by: java.lang.IllegalArgumentException: root\n\tat ");
		// the cause was made on the same line: every frame is shared with the outer one
		// but its first
		assertThat(text).containsPattern("Caused by: [^\n]+\n\tat [^\n]+\n\t\\.\\.\\. \\d+ more$");
	}

	@Test
	void keepsAtMostSomeFramesOfEachExceptionAndABoundedLength() {
		RuntimeException deep = recurse(200);
		String text = StackTraceText.of(deep);
		assertThat(text.lines().filter((line) -> line.startsWith("\tat "))).hasSize(StackTraceText.MAX_FRAMES);
		assertThat(text).contains("frames left out");

		Throwable cause = null;
		for (int i = 0; i < 30; i++) {
			cause = new IllegalStateException("level " + i + " " + "x".repeat(500), cause);
		}
		String bounded = StackTraceText.of(cause);
		assertThat(bounded).hasSize(StackTraceText.MAX_LENGTH).endsWith(StackTraceText.TRIMMED);
	}

	@Test
	void endsACycleOfCauses() {
		IllegalStateException first = new IllegalStateException("first");
		IllegalStateException second = new IllegalStateException("second", first);
		first.initCause(second);
		assertThat(StackTraceText.of(first)).containsOnlyOnce("Caused by: java.lang.IllegalStateException: second")
			.doesNotContain("Caused by: java.lang.IllegalStateException: first");
	}

	private static IllegalArgumentException root() {
		return new IllegalArgumentException("root");
	}

	private static RuntimeException recurse(int depth) {
		return (depth == 0) ? new RuntimeException("deep") : recurse(depth - 1);
	}

}
