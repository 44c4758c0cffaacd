package io.redq.queue.script;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * The Lua scripts behind every queue operation, one {@link RedisScript} instance each so
 * that each SHA1 is computed once.
 *
 * <p>
 * The scripts live next to this class ({@code io/redq/queue/script/*.lua});
 * {@code common.lua} is prepended to each so that they share the key layout and helper
 * functions, each script only the helpers it calls (see {@link #of(String, Class)}).
 * Spring Data Redis runs them with {@code EVALSHA} and falls back to {@code EVAL} when
 * Redis lost its script cache (restart, failover, {@code SCRIPT FLUSH}).
 *
 * <p>
 * The components are the one list of these scripts: {@link #DEFINITIONS} is derived from
 * them, and {@link #from(Function)} builds the set from any source of scripts by
 * definition, such as the beans of an application context.
 *
 * @param enqueue enqueues a batch of jobs, now or delayed, with optional deduplication by
 * id
 * @param push enqueues jobs ready at once under generated ids, at the default level and
 * in no group (a single dispatch, most batches), cheaper than {@code enqueue}
 * @param reserve reserves a batch of ready jobs under a lease
 * @param ack acknowledges completed jobs, checking their lease tokens
 * @param fail records a failed attempt: retry later or dead
 * @param extend extends leases, checking their tokens
 * @param release hands reserved jobs back at once
 * @param migrate moves due delayed jobs and expired leases
 * @param cancel removes a pending job
 * @param stats counts ready, delayed, reserved and dead jobs
 * @param admit passes a reserved job through its gates (exclusive key, running limits,
 * rate limit) or defers it
 * @param hold renews or leaves the gates of a running job
 * @param reschedule moves a pending job to a new due time
 * @param status tells where a job is
 * @param dead pages through dead jobs, or reads some by id
 * @param revive retries or deletes dead jobs
 * @param model returns the queue's data model, after the check every script makes
 * @param purge deletes every job of a queue in one step
 * @param result reads where a job's result stands for a caller that waits for it
 * @param progress writes a running job's progress, cursor and finished steps
 * @author Redq team
 * @since 0.1.0
 */
@SuppressWarnings("rawtypes")
public record QueueScripts(RedisScript<List> enqueue, RedisScript<List> push, RedisScript<List> reserve,
		RedisScript<List> ack, RedisScript<Long> fail, RedisScript<List> extend, RedisScript<Long> release,
		RedisScript<List> migrate, RedisScript<Long> cancel, RedisScript<List> stats, RedisScript<Long> admit,
		RedisScript<List> hold, RedisScript<Long> reschedule, RedisScript<List> status, RedisScript<List> dead,
		RedisScript<Long> revive, RedisScript<Long> model, RedisScript<Long> purge, RedisScript<List> result,
		RedisScript<Long> progress) {

	/**
	 * The definition of each script, in the order of the components.
	 */
	public static final List<ScriptDefinition> DEFINITIONS = ScriptDefinition.of(QueueScripts.class, "");

	/** How a script that only reads begins: it then leaves a queue as it found it. */
	private static final String READ_ONLY_MARK = "-- Read-only:";

	/** The flag in {@code common.lua} that a script that only reads sets. */
	private static final String WRITES = "local READ_ONLY = false";

	private static final String COMMON_TEXT = read("common");

	private static final CommonLua COMMON = new CommonLua(COMMON_TEXT);

	/**
	 * The width of each priority level's band of scores in a queue's set of queued jobs:
	 * a job at level {@code L} scores {@code (HIGHEST - L) * PRIORITY_BAND} plus its
	 * slot. Read from {@code BAND} in {@code common.lua}, its one definition.
	 */
	public static final long PRIORITY_BAND = constant("BAND");

	/**
	 * Load every script from the class path.
	 * @return the scripts
	 */
	public static QueueScripts load() {
		return from(ScriptDefinition::load);
	}

	/**
	 * Create the scripts from a source of scripts by definition.
	 * @param source returns the script of each of the {@link #DEFINITIONS}
	 * @return the scripts
	 */
	public static QueueScripts from(Function<ScriptDefinition, RedisScript<?>> source) {
		return ScriptDefinition.create(QueueScripts.class, DEFINITIONS, source);
	}

	/**
	 * Load one script, with the part of the shared {@code common.lua} it uses prepended.
	 * @param <T> the result type
	 * @param name the script name, e.g. {@code enqueue}
	 * @param resultType the result type: {@code List} for arrays, {@code Long} for
	 * integers
	 * @return the script
	 * @see #of(String, Class)
	 */
	public static <T> RedisScript<T> load(String name, Class<T> resultType) {
		return of(read(name), resultType);
	}

	/**
	 * Create a script from its own text, with the part of the shared {@code common.lua}
	 * it uses prepended: the key layout, the data-model check and the helper functions it
	 * calls. A script whose first line begins with {@code -- Read-only:} is told that it
	 * only reads.
	 * @param <T> the result type
	 * @param script the script's text, as in its {@code .lua} file
	 * @param resultType the result type: {@code List} for arrays, {@code Long} for
	 * integers
	 * @return the script
	 */
	public static <T> RedisScript<T> of(String script, Class<T> resultType) {
		String common = COMMON.prefixFor(script);
		if (script.startsWith(READ_ONLY_MARK)) {
			Assert.state(common.contains(WRITES), "common.lua declares no READ_ONLY flag");
			common = common.replace(WRITES, "local READ_ONLY = true");
		}
		return RedisScript.of(common + "\n" + script, resultType);
	}

	private static long constant(String name) {
		Matcher definition = Pattern.compile("^local " + name + " = (\\d+)$", Pattern.MULTILINE).matcher(COMMON_TEXT);
		Assert.state(definition.find(), () -> "common.lua defines no " + name);
		return Long.parseLong(definition.group(1));
	}

	private static String read(String name) {
		ClassPathResource resource = new ClassPathResource(name + ".lua", QueueScripts.class);
		try {
			return resource.getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Redq script " + resource, ex);
		}
	}

}
