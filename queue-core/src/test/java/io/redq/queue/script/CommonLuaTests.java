package io.redq.queue.script;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link CommonLua}: each script is given the statements of {@code common.lua}
 * and only the helpers it calls.
 *
 * @author Redq team
 */
class CommonLuaTests {

	private static final String COMMON = """
			-- the keys
			local ready = KEYS[1]

			-- a helper
			local function first()
				return 1
			end

			-- calls first
			local function second()
				return first() + 1
			end

			local function unused()
				return second()
			end

			local found = redis.call('GET', ready)""";

	@Test
	void keepsStatementsAndTheHelpersAScriptCallsThroughOtherHelpers() {
		String prefix = new CommonLua(COMMON).prefixFor("return second()");
		assertThat(prefix).contains("local ready = KEYS[1]", "local function first()", "local function second()",
				"local found = redis.call('GET', ready)");
		assertThat(prefix).doesNotContain("unused");
	}

	@Test
	void aHelperNamedOnlyInACommentIsLeftOut() {
		String prefix = new CommonLua(COMMON).prefixFor("-- unlike second(), this returns 0\nreturn 0");
		assertThat(prefix).doesNotContain("local function second()", "local function first()");
	}

	@Test
	void aBlankLineInsideADefinitionIsRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> new CommonLua("local function broken()\n\tlocal a = 1\n\n\treturn a\nend"))
			.withMessageContaining("blank line inside a definition, before: \treturn a");
	}

	@Test
	void everyQueueScriptKeepsTheModelCheckAndLeavesOutHelpersItNeverCalls() {
		String enqueue = QueueScripts.load("enqueue", List.class).getScriptAsString();
		assertThat(enqueue).contains("local function create(", "local function unstale(",
				"local found_model = tonumber(stored_model)", "redis.call('SET', model, MODEL)");
		assertThat(enqueue).doesNotContain("local function count_finished(", "local function trim_dead(");
		String stats = QueueScripts.load("stats", List.class).getScriptAsString();
		assertThat(stats).contains("local READ_ONLY = true").doesNotContain("local function create(");
	}

}
