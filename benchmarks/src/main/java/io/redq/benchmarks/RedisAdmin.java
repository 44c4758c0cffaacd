package io.redq.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

/**
 * The harness's own connection to Redis, apart from the application's: reads
 * {@code INFO}, polls for completion and cleans up. It counts the commands it sends so
 * that they can be left out of the command statistics.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RedisAdmin implements AutoCloseable {

	private final String host;

	private final int port;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final Map<String, LongAdder> sent = new ConcurrentHashMap<>();

	RedisAdmin(String host, int port) {
		this.host = host;
		this.port = port;
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
	}

	String host() {
		return this.host;
	}

	int port() {
		return this.port;
	}

	/**
	 * Return one section of {@code INFO} as a map. {@code INFO} is never counted: Redq
	 * does not send it.
	 * @param section the section, e.g. {@code commandstats}
	 * @return the fields
	 */
	Map<String, String> info(String section) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : this.commands.info(section).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	long hlen(String key) {
		count("hlen");
		return this.commands.hlen(key);
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
		StringCodec codec = StringCodec.UTF8;
		Long bytes = this.commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(codec),
				new CommandArgs<>(codec).add("USAGE").addKey(key).add("SAMPLES").add(0));
		return (bytes != null) ? bytes : 0;
	}

	/**
	 * Return one value of a hash, or {@code null} when it is empty.
	 * @param key the key of the hash
	 * @return a value
	 */
	@Nullable String anyHashValue(String key) {
		count("hrandfield");
		List<KeyValue<String, String>> entries = this.commands.hrandfieldWithvalues(key, 1);
		return entries.isEmpty() ? null : entries.get(0).getValue();
	}

	void delete(List<String> keys) {
		if (!keys.isEmpty()) {
			count("del");
			this.commands.del(keys.toArray(String[]::new));
		}
	}

	void deleteKeys(String pattern) {
		ScanIterator<String> keys = ScanIterator.scan(this.commands, ScanArgs.Builder.matches(pattern).limit(1000));
		while (keys.hasNext()) {
			delete(List.of(keys.next()));
		}
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

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
