package io.redq.queue.script;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link QueueScripts}.
 *
 * @author Redq team
 */
class QueueScriptsTests {

	@Test
	void priorityBandIsReadFromCommonLua() {
		assertThat(QueueScripts.PRIORITY_BAND).isEqualTo(1L << 44);
	}

}
