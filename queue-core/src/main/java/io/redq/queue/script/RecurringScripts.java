package io.redq.queue.script;

import java.util.List;
import java.util.function.Function;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts behind recurring jobs, loaded like {@link QueueScripts} (with
 * {@code common.lua} prepended). Each takes the keys of the job's queue followed by the
 * job's state key, {@code <prefix>:{<queue>}:recurring:<job>}.
 *
 * @param tick enqueues a tick of a recurring job unless it was handled already, and
 * records it
 * @param pause pauses or resumes a recurring job
 * @author Redq team
 * @since 0.1.0
 */
@SuppressWarnings("rawtypes")
public record RecurringScripts(RedisScript<List> tick, RedisScript<Long> pause) {

	/**
	 * The definition of each script, in the order of the components; their names start
	 * with {@code recurring-}.
	 */
	public static final List<ScriptDefinition> DEFINITIONS = ScriptDefinition.of(RecurringScripts.class, "recurring-");

	/**
	 * Load every script from the class path.
	 * @return the scripts
	 */
	public static RecurringScripts load() {
		return from(ScriptDefinition::load);
	}

	/**
	 * Create the scripts from a source of scripts by definition.
	 * @param source returns the script of each of the {@link #DEFINITIONS}
	 * @return the scripts
	 */
	public static RecurringScripts from(Function<ScriptDefinition, RedisScript<?>> source) {
		return ScriptDefinition.create(RecurringScripts.class, DEFINITIONS, source);
	}

}
