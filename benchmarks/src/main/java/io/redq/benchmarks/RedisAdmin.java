package io.redq.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.redq.queue.test.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * The harness's own access to Redis, apart from the application's: reads {@code INFO},
 * polls for completion and cleans up, through the administration connection of
 * queue-test's {@link RedisServer}. It counts the commands it sends so that they can be
 * left out of the command statistics.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RedisAdmin {

	private final RedisServer server;

	private final Map<String, LongAdder> sent = new ConcurrentHashMap<>();

	RedisAdmin(RedisServer server) {
		this.server = server;
	}

	String host() {
		return this.server.host();
	}

	int port() {
		return this.server.port();
	}

	/**
	 * Return one section of {@code INFO} as a map. {@code INFO} is never counted: Redq
	 * does not send it.
	 * @param section the section, e.g. {@code commandstats}
	 * @return the fields
	 */
	Map<String, String> info(String section) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : this.server.command("INFO", section).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	long hlen(String key) {
		count("hlen");
		return Long.parseLong(this.server.command("HLEN", key));
	}

	long usedMemory() {
		return Long.parseLong(info("memory").get("used_memory"));
	}

	/**
	 * Return the bytes a key and its value take ({@code MEMORY USAGE key SAMPLES 0}).
	 * @param key the key
	 * @return the bytes, 0 when the key does not exist
	 */
	long memoryUsage(String key) {
		count("memory|usage");
		String bytes = this.server.command("MEMORY", "USAGE", key, "SAMPLES", "0");
		return (bytes != null) ? Long.parseLong(bytes) : 0;
	}

	/**
	 * Return one value of a hash, or {@code null} when it is empty.
	 * @param key the key of the hash
	 * @return a value
	 */
	@Nullable String anyHashValue(String key) {
		count("hrandfield");
		// the field, a job id, holds no line break; the value comes after it
		String entry = this.server.command("HRANDFIELD", key, "1", "WITHVALUES");
		return (entry == null || entry.isEmpty()) ? null : entry.substring(entry.indexOf('\n') + 1);
	}

	void delete(List<String> keys) {
		if (!keys.isEmpty()) {
			count("del");
			List<String> command = new ArrayList<>(keys);
			command.add(0, "DEL");
			this.server.command(command.toArray(String[]::new));
		}
	}

	void deleteKeys(String pattern) {
		keys(pattern).forEach((key) -> delete(List.of(key)));
	}

	/**
	 * Return the keys that match a pattern, found with {@code SCAN}.
	 * @param pattern the pattern
	 * @return the keys
	 */
	List<String> keys(String pattern) {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			count("scan");
			// the cursor, then the keys, which hold no line breaks
			List<String> reply = List
				.of(this.server.command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000").split("\n"));
			cursor = reply.get(0);
			reply.subList(1, reply.size()).stream().filter((key) -> !key.isEmpty()).forEach(keys::add);
		}
		while (!cursor.equals("0"));
		return keys;
	}

	/**
	 * Return how many commands of each name this connection has sent so far.
	 * @return calls by command name, lower case as in {@code INFO commandstats}
	 */
	Map<String, Long> sent() {
		Map<String, Long> sent = new LinkedHashMap<>();
		this.sent.forEach((name, count) -> sent.put(name, count.sum()));
		return sent;
	}

	private void count(String command) {
		this.sent.computeIfAbsent(command, (name) -> new LongAdder()).increment();
	}

}
