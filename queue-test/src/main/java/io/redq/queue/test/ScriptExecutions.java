package io.redq.queue.test;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the Lua scripts a Redis server has run, from {@code INFO commandstats}.
 *
 * @author Redq team
 */
public final class ScriptExecutions {

	private ScriptExecutions() {
	}

	/**
	 * Return how many {@code EVAL} and {@code EVALSHA} calls succeeded so far
	 * ({@code NOSCRIPT} failures excluded).
	 * @param redis the server
	 * @return the count
	 */
	public static long count(RedisServer redis) {
		return calls(redis, "evalsha") + calls(redis, "eval");
	}

	/**
	 * Return how many calls of a command succeeded so far, including those made inside
	 * scripts.
	 * @param redis the server
	 * @param command the command name in lower case
	 * @return the count
	 */
	public static long calls(RedisServer redis, String command) {
		return commands(redis).getOrDefault(command, 0L);
	}

	/**
	 * Return how many calls of each command succeeded so far, including those made inside
	 * scripts.
	 * @param redis the server
	 * @return the counts by command name in lower case
	 */
	public static Map<String, Long> commands(RedisServer redis) {
		Map<String, Long> commands = new TreeMap<>();
		for (String line : redis.command("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				commands.put(line.substring("cmdstat_".length(), line.indexOf(':')),
						field(line, "calls") - field(line, "failed_calls"));
			}
		}
		return commands;
	}

	/**
	 * Run an action and return the commands it made the server run.
	 * @param redis the server
	 * @param action what to run
	 * @return the calls of each command the action added, by name in lower case; commands
	 * it did not call are left out
	 */
	public static Map<String, Long> commandsOf(RedisServer redis, Runnable action) {
		Map<String, Long> before = commands(redis);
		action.run();
		return minus(commands(redis), before);
	}

	/**
	 * Subtract command counts.
	 * @param calls the counts by command
	 * @param subtracted the counts to subtract
	 * @return the differences, without the commands whose difference is zero
	 */
	public static Map<String, Long> minus(Map<String, Long> calls, Map<String, Long> subtracted) {
		Map<String, Long> difference = new TreeMap<>(calls);
		subtracted.forEach((command, count) -> difference.merge(command, -count, Long::sum));
		difference.values().removeIf((count) -> count == 0);
		return difference;
	}

	private static long field(String line, String name) {
		for (String pair : line.substring(line.indexOf(':') + 1).split(",")) {
			if (pair.startsWith(name + "=")) {
				return Long.parseLong(pair.substring(name.length() + 1));
			}
		}
		throw new IllegalStateException("No " + name + " in " + line);
	}

}
