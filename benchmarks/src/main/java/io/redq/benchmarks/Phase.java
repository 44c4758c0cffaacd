package io.redq.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A measured stretch of a scenario: its wall time, the CPU time of this JVM and of each
 * kind of its threads, the time its JIT compiler took, and what Redis did meanwhile.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class Phase {

	private final Harness harness;

	private final RedisStats redisBefore;

	private final long startNanos;

	private final long cpuNanos;

	private final ThreadCpu threadCpu;

	private final long jitMillis;

	private Phase(Harness harness) {
		this.harness = harness;
		this.redisBefore = RedisStats.take(harness.redis());
		this.cpuNanos = processCpuNanos();
		this.threadCpu = ThreadCpu.take();
		this.jitMillis = Harness.jitMillis();
		this.startNanos = System.nanoTime();
	}

	/**
	 * Start a phase and log what it measures; a warm-up round starts one without a word.
	 * @param harness the harness
	 * @param result where the figures go, or {@code null} in a warm-up round
	 * @param what what the phase measures, e.g. {@code "1000 jobs"}
	 * @return the phase
	 */
	static Phase start(Harness harness, Result result, String what) {
		if (result != null) {
			harness.log("Measuring " + what);
		}
		return new Phase(harness);
	}

	long startNanos() {
		return this.startNanos;
	}

	/**
	 * End the phase now and put its throughput, Redis commands and CPU use in the result.
	 * @param result the result
	 * @param prefix the prefix of the figures' names, or empty
	 * @param jobs the jobs of the phase
	 * @return the Redis statistics of the phase
	 */
	RedisStats end(Result result, String prefix, int jobs) {
		return end(result, prefix, jobs, System.nanoTime());
	}

	/**
	 * End the phase at a given time and put its throughput, Redis commands and CPU use in
	 * the result. The CPU time per job is given for Redis and for each kind of this JVM's
	 * threads (their names without numbers), so that a profile of where a job's cost goes
	 * comes with every run; {@code jit} is the compiler's time, and {@code other} the
	 * rest (kinds that used under a millisecond, the garbage collector).
	 * @param result the result
	 * @param prefix the prefix of the figures' names, or empty
	 * @param jobs the jobs of the phase
	 * @param endNanos when the phase ended ({@link System#nanoTime()})
	 * @return the Redis statistics of the phase
	 */
	RedisStats end(Result result, String prefix, int jobs, long endNanos) {
		double seconds = (endNanos - this.startNanos) / 1e9;
		long cpuNanos = processCpuNanos() - this.cpuNanos;
		Map<String, Long> byKind = this.threadCpu.used();
		long jitMillis = Harness.jitMillis() - this.jitMillis;
		double cpuSeconds = cpuNanos / 1e9;
		RedisStats stats = RedisStats.take(this.harness.redis()).since(this.redisBefore);
		result.put(prefix.isEmpty() ? "jobsPerSecond" : prefix + Result.THROUGHPUT, jobs / seconds);
		result.put(prefix.isEmpty() ? "seconds" : prefix + "Seconds", seconds);
		result.put(prefix.isEmpty() ? "jvmCpuPercent" : prefix + "JvmCpuPercent", 100 * cpuSeconds / seconds);
		result.put(prefix.isEmpty() ? "jitMillis" : prefix + "JitMillis", jitMillis);
		result.putCommands(prefix, stats, jobs);
		Map<String, Double> micros = new LinkedHashMap<>();
		micros.put("redis", Result.round(stats.cpuSeconds() * 1e6 / jobs));
		long accounted = jitMillis * 1_000_000;
		for (Map.Entry<String, Long> kind : byKind.entrySet()) {
			// the kinds that used under a millisecond go to other
			if (kind.getValue() >= 1_000_000) {
				micros.put(kind.getKey(), Result.round(kind.getValue() / 1e3 / jobs));
				accounted += kind.getValue();
			}
		}
		micros.put("jit", Result.round(jitMillis * 1e3 / jobs));
		micros.put("other", Result.round(Math.max(0, cpuNanos - accounted) / 1e3 / jobs));
		result.put(prefix.isEmpty() ? "cpuMicrosPerJob" : prefix + "CpuMicrosPerJob", micros);
		return stats;
	}

	static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

}
