package io.redq.benchmarks;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * The figures of one run, in the order they were measured; printed as a table and as one
 * {@code RESULT {...}} line of JSON.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class Result {

	/** The suffix of the throughput figures that get a ratio to the LPUSH baseline. */
	static final String THROUGHPUT = "JobsPerSecond";

	private final Map<String, Object> values = new LinkedHashMap<>();

	Result(String scenario) {
		this.values.put("scenario", scenario);
	}

	/**
	 * Return the figures.
	 * @return the figures by name
	 */
	public Map<String, Object> values() {
		return this.values;
	}

	Result put(String name, Object value) {
		this.values.put(name, (value instanceof Double number) ? round(number) : value);
		return this;
	}

	/**
	 * Add p50, p99 and max of latencies.
	 * @param prefix the name prefix, e.g. {@code latency}
	 * @param micros the latencies in microseconds
	 */
	void putLatencies(String prefix, long[] micros) {
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		put(prefix + "Samples", sorted.length);
		putPercentiles(prefix, sorted);
		put(prefix + "MaxMs", (sorted.length > 0) ? sorted[sorted.length - 1] / 1000.0 : 0.0);
	}

	/**
	 * Add p50 and p99 of latencies.
	 * @param prefix the name prefix, e.g. {@code latency}
	 * @param micros the latencies in microseconds
	 */
	void putPercentiles(String prefix, long[] micros) {
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		put(prefix + "P50Ms", percentile(sorted, 50) / 1000.0);
		put(prefix + "P99Ms", percentile(sorted, 99) / 1000.0);
	}

	/**
	 * Add the Redis commands per job, and the Redis CPU use, of a measured phase.
	 * @param prefix the name prefix, e.g. {@code batch}, or empty
	 * @param stats what Redis did in the phase
	 * @param jobs the jobs of the phase
	 */
	void putCommands(String prefix, RedisStats stats, long jobs) {
		put(name(prefix, "roundTripsPerJob"), (double) stats.roundTrips() / jobs);
		put(name(prefix, "scriptCallsPerJob"), (double) stats.scriptCalls() / jobs);
		put(name(prefix, "commandsPerJob"), (double) stats.total() / jobs);
		put(name(prefix, "commandsInScriptsPerJob"), (double) (stats.total() - stats.roundTrips()) / jobs);
		put(name(prefix, "scriptMicrosPerJob"), (double) stats.scriptMicros() / jobs);
		put(name(prefix, "redisCpuPercent"), 100 * stats.cpuSeconds() / stats.seconds());
		put(name(prefix, "commandCallsPerJob"), perUnit(stats, jobs));
	}

	/**
	 * Add the ratio of each throughput figure to the redis-benchmark LPUSH figure.
	 * @param lpushPerSecond the LPUSH requests per second
	 */
	void lpushBaseline(double lpushPerSecond) {
		Map<String, Object> ratios = new LinkedHashMap<>();
		this.values.forEach((name, value) -> {
			if (name.endsWith(THROUGHPUT) || name.equals("jobsPerSecond")) {
				ratios.put(name, round(((Number) value).doubleValue() / lpushPerSecond));
			}
		});
		put("lpushPerSecond", lpushPerSecond);
		put("lpushRatios", ratios);
	}

	String toJson() {
		return JsonMapper.shared().writeValueAsString(this.values);
	}

	void print(PrintStream out) {
		out.println();
		int width = this.values.keySet().stream().mapToInt(String::length).max().orElse(10);
		this.values.forEach((name, value) -> out.printf("  %-" + width + "s  %s%n", name, value));
		out.println();
		out.println("RESULT " + toJson());
	}

	/** Each command's calls per unit (per job, per second), most first. */
	static Map<String, Double> perUnit(RedisStats stats, double units) {
		return perUnit(stats.calls(), units);
	}

	/** The microseconds Redis spent in each command per unit, most first. */
	static Map<String, Double> microsPerUnit(RedisStats stats, double units) {
		return perUnit(stats.micros(), units);
	}

	private static Map<String, Double> perUnit(Map<String, Long> byCommand, double units) {
		Map<String, Double> perUnit = new LinkedHashMap<>();
		byCommand.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
			.forEach((entry) -> perUnit.put(entry.getKey(), round(entry.getValue() / units)));
		return perUnit;
	}

	private static String name(String prefix, String name) {
		return prefix.isEmpty() ? name : prefix + Character.toUpperCase(name.charAt(0)) + name.substring(1);
	}

	private static long percentile(long[] sorted, int percentile) {
		if (sorted.length == 0) {
			return 0;
		}
		int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
		return sorted[Math.max(0, rank - 1)];
	}

	static double round(double value) {
		if (Math.abs(value) >= 100) {
			return Math.round(value * 10) / 10.0;
		}
		return Math.round(value * 1000) / 1000.0;
	}

}
