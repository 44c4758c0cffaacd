package io.redq.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * The harness's own access to Redis, apart from the application's: reads {@code INFO},
 * polls for completion and cleans up, through the administration connection of
 * queue-test's {@link RedisServer}. It counts the commands it sends so that they can be
 * left out of the command statistics. On a {@link RedisCluster}, a command on a key goes
 * to the master of the key's slot, {@code INFO} of the server to the first master, and
 * the statistics are taken on every master.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RedisAdmin {

	private final RedisServer server;

	private final @Nullable RedisCluster cluster;

	/** By master's port, the commands sent to it by name. */
	private final Map<Integer, Map<String, LongAdder>> sent = new ConcurrentHashMap<>();

	/** The master of each key used so far, on a cluster. */
	private final Map<String, RedisServer> masters = new ConcurrentHashMap<>();

	RedisAdmin(RedisServer server) {
		this.server = server;
		this.cluster = null;
	}

	RedisAdmin(RedisCluster cluster) {
		this.server = cluster.masters().get(0);
		this.cluster = cluster;
	}

	/**
	 * Return the cluster the harness started, if it did.
	 * @return the cluster, or {@code null} on a single Redis
	 */
	@Nullable RedisCluster cluster() {
		return this.cluster;
	}

	/**
	 * Return the servers whose statistics describe the run: every master of a cluster,
	 * else the one server.
	 * @return the servers
	 */
	List<RedisServer> masters() {
		return (this.cluster != null) ? this.cluster.masters() : List.of(this.server);
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
		return info(this.server, section);
	}

	/**
	 * Return one section of {@code INFO} of one server, as {@link #info(String)}.
	 * @param server the server, one of {@link #masters()}
	 * @param section the section
	 * @return the fields
	 */
	Map<String, String> info(RedisServer server, String section) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : server.command("INFO", section).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	long hlen(String key) {
		return Long.parseLong(command(key, "hlen", "HLEN", key));
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
		String bytes = command(key, "memory|usage", "MEMORY", "USAGE", key, "SAMPLES", "0");
		return (bytes != null) ? Long.parseLong(bytes) : 0;
	}

	/**
	 * Return one value of a hash, or {@code null} when it is empty.
	 * @param key the key of the hash
	 * @return a value
	 */
	@Nullable String anyHashValue(String key) {
		// the field, a job id, holds no line break; the value comes after it
		String entry = command(key, "hrandfield", "HRANDFIELD", key, "1", "WITHVALUES");
		return (entry == null || entry.isEmpty()) ? null : entry.substring(entry.indexOf('\n') + 1);
	}

	void delete(List<String> keys) {
		if (this.cluster != null) {
			// the keys of one call may live in several slots
			keys.forEach((key) -> command(key, "del", "DEL", key));
		}
		else if (!keys.isEmpty()) {
			List<String> command = new ArrayList<>(keys);
			command.add(0, "DEL");
			command(keys.get(0), "del", command.toArray(String[]::new));
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
		for (RedisServer master : masters()) {
			String cursor = "0";
			do {
				count(master, "scan");
				// the cursor, then the keys, which hold no line breaks
				List<String> reply = List
					.of(master.command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000").split("\n"));
				cursor = reply.get(0);
				reply.subList(1, reply.size()).stream().filter((key) -> !key.isEmpty()).forEach(keys::add);
			}
			while (!cursor.equals("0"));
		}
		return keys;
	}

	/**
	 * Return how many commands of each name this connection has sent to one server so
	 * far.
	 * @param server the server, one of {@link #masters()}
	 * @return calls by command name, lower case as in {@code INFO commandstats}
	 */
	Map<String, Long> sent(RedisServer server) {
		Map<String, Long> sent = new LinkedHashMap<>();
		this.sent.getOrDefault(server.port(), Map.of()).forEach((name, count) -> sent.put(name, count.sum()));
		return sent;
	}

	private @Nullable String command(String key, String name, String... command) {
		RedisServer master = (this.cluster != null) ? this.masters.computeIfAbsent(key, this.cluster::masterOf)
				: this.server;
		count(master, name);
		return master.command(command);
	}

	private void count(RedisServer server, String command) {
		this.sent.computeIfAbsent(server.port(), (port) -> new ConcurrentHashMap<>())
			.computeIfAbsent(command, (name) -> new LongAdder())
			.increment();
	}

}
