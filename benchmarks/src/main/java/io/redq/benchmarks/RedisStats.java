package io.redq.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.test.RedisServer;

/**
 * Redis's command counts ({@code INFO commandstats}) and CPU time at one moment, less the
 * harness's own commands, of one server or of every master of a cluster added up;
 * {@link #since(RedisStats)} gives what happened between two of them.
 *
 * <p>
 * Redis counts the commands a Lua script calls as well as the script call itself. Redq's
 * Java code sends only {@code EVALSHA} (or {@code EVAL} after a script cache flush) and
 * {@code BZPOPMIN}, plus connection set-up, so these are its round trips and every other
 * command ran inside a script.
 *
 * @param calls the calls by command name
 * @param micros the time Redis spent in each command, in microseconds
 * @param cpuSeconds the CPU time of the Redis process (user and system)
 * @param userSeconds its user CPU time alone: what the commands cost, without the system
 * calls that read and answer them
 * @param nanos when the snapshot was taken ({@link System#nanoTime()})
 * @author Redq team
 * @since 0.1.0
 */
record RedisStats(Map<String, Long> calls, Map<String, Long> micros, double cpuSeconds, double userSeconds,
		long nanos) {

	/**
	 * Take the statistics of the benchmark's Redis: of every master of a cluster added
	 * up.
	 * @param admin the harness's access to Redis
	 * @return the statistics
	 */
	static RedisStats take(RedisAdmin admin) {
		return sum(perMaster(admin));
	}

	/**
	 * Add up the statistics of several masters.
	 * @param masters the statistics of each, at least one
	 * @return their sum
	 */
	static RedisStats sum(List<RedisStats> masters) {
		return masters.stream().reduce(RedisStats::plus).orElseThrow();
	}

	/**
	 * Take the statistics of each master of the benchmark's Redis: one on a single Redis.
	 * @param admin the harness's access to Redis
	 * @return the statistics, in the order of {@link RedisAdmin#masters()}
	 */
	static List<RedisStats> perMaster(RedisAdmin admin) {
		return admin.masters().stream().map((master) -> take(admin, master)).toList();
	}

	private static RedisStats take(RedisAdmin admin, RedisServer server) {
		Map<String, Long> calls = new LinkedHashMap<>();
		Map<String, Long> micros = new LinkedHashMap<>();
		admin.info(server, "commandstats").forEach((key, value) -> {
			String name = key.substring(key.indexOf('_') + 1);
			if (!name.equals("info")) {
				calls.put(name, field(value, "calls"));
				micros.put(name, field(value, "usec"));
			}
		});
		admin.sent(server).forEach((name, count) -> calls.computeIfPresent(name, (key, value) -> value - count));
		Map<String, String> cpu = admin.info(server, "cpu");
		double userSeconds = Double.parseDouble(cpu.get("used_cpu_user"));
		double cpuSeconds = userSeconds + Double.parseDouble(cpu.get("used_cpu_sys"));
		return new RedisStats(calls, micros, cpuSeconds, userSeconds, System.nanoTime());
	}

	private RedisStats plus(RedisStats other) {
		Map<String, Long> calls = new LinkedHashMap<>(this.calls);
		Map<String, Long> micros = new LinkedHashMap<>(this.micros);
		other.calls.forEach((name, count) -> calls.merge(name, count, Long::sum));
		other.micros.forEach((name, count) -> micros.merge(name, count, Long::sum));
		return new RedisStats(calls, micros, this.cpuSeconds + other.cpuSeconds, this.userSeconds + other.userSeconds,
				Math.max(this.nanos, other.nanos));
	}

	/**
	 * Return what happened since an earlier snapshot.
	 * @param before the earlier snapshot
	 * @return the differences; {@link #nanos()} is the time between them
	 */
	RedisStats since(RedisStats before) {
		Map<String, Long> calls = new LinkedHashMap<>();
		Map<String, Long> micros = new LinkedHashMap<>();
		this.calls.forEach((name, count) -> {
			long delta = count - before.calls.getOrDefault(name, 0L);
			if (delta != 0) {
				calls.put(name, delta);
				micros.put(name, this.micros.get(name) - before.micros.getOrDefault(name, 0L));
			}
		});
		return new RedisStats(calls, micros, this.cpuSeconds - before.cpuSeconds, this.userSeconds - before.userSeconds,
				this.nanos - before.nanos);
	}

	long total() {
		return this.calls.values().stream().mapToLong(Long::longValue).sum();
	}

	long scriptCalls() {
		return this.calls.getOrDefault("evalsha", 0L) + this.calls.getOrDefault("eval", 0L);
	}

	long scriptMicros() {
		return this.micros.getOrDefault("evalsha", 0L) + this.micros.getOrDefault("eval", 0L);
	}

	/**
	 * Return the commands that the application sent, as opposed to those its scripts
	 * called.
	 * @return the round trips
	 */
	long roundTrips() {
		return this.calls.entrySet()
			.stream()
			.filter((entry) -> isSentByClient(entry.getKey()))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	double seconds() {
		return this.nanos / 1e9;
	}

	private static boolean isSentByClient(String name) {
		return name.equals("evalsha") || name.equals("eval") || name.equals("bzpopmin") || name.equals("hello")
				|| name.equals("ping") || name.equals("select") || name.startsWith("client")
				|| name.startsWith("config") || name.startsWith("script");
	}

	private static long field(String value, String name) {
		for (String part : value.split(",")) {
			if (part.startsWith(name + "=")) {
				return Long.parseLong(part.substring(name.length() + 1));
			}
		}
		return 0;
	}

}
