package io.redq.queue.listener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for the bounds of what {@link JobRunState} keeps: each refused with a message
 * that says what was wrong and what to do.
 *
 * @author Redq team
 */
class JobRunStateTests {

	@Test
	void progressIsAFractionFromZeroToOneWithAShortMessage() {
		assertThatNoException().isThrownBy(() -> JobRunState.checkProgress(0, null));
		assertThatNoException()
			.isThrownBy(() -> JobRunState.checkProgress(1, "x".repeat(JobContext.MAX_PROGRESS_MESSAGE_LENGTH)));
		assertThatIllegalArgumentException().isThrownBy(() -> JobRunState.checkProgress(42, "rows"))
			.withMessage("Progress must be a fraction from 0 to 1 (0.25 for a quarter done), not 42.0");
		assertThatIllegalArgumentException().isThrownBy(() -> JobRunState.checkProgress(Double.NaN, "rows"))
			.withMessageContaining("not NaN");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobRunState.checkProgress(0.5, "x".repeat(JobContext.MAX_PROGRESS_MESSAGE_LENGTH + 1)))
			.withMessage("Progress message must be at most 200 characters, not 201: say how far the job is, and keep "
					+ "details in the job's own data");
	}

	@Test
	void aCursorIsAPositionOfAtMostAFewKilobytes() {
		assertThatNoException().isThrownBy(() -> JobRunState.checkCursor("import", "{\"after\":\"order-42\"}"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobRunState.checkCursor("import", "\"" + "x".repeat(JobContext.MAX_CURSOR_SIZE) + "\""))
			.withMessage("Cursor of job import is 4098 bytes of JSON, over the limit of 4096: keep a position in the "
					+ "cursor (an id, an offset, a page token), not the data");
	}

	@Test
	void aStepHasAShortName() {
		assertThatNoException().isThrownBy(() -> JobRunState.checkStepName("download"));
		assertThatIllegalArgumentException().isThrownBy(() -> JobRunState.checkStepName(""))
			.withMessage("Step name must have 1 to 100 characters, not ''");
	}

}
