package io.redq.benchmarks;

import java.lang.management.ManagementFactory;

/**
 * A measured stretch of a scenario: its wall time, the CPU time of this JVM, the time its
 * JIT compiler took, and what Redis did meanwhile.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class Phase {

	private final Harness harness;

	private final RedisStats redisBefore;

	private final long startNanos;

	private final long cpuNanos;

	private final long jitMillis;

	private Phase(Harness harness) {
		this.harness = harness;
		this.redisBefore = RedisStats.take(harness.redis());
		this.cpuNanos = processCpuNanos();
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
	 * the result.
	 * @param result the result
	 * @param prefix the prefix of the figures' names, or empty
	 * @param jobs the jobs of the phase
	 * @param endNanos when the phase ended ({@link System#nanoTime()})
	 * @return the Redis statistics of the phase
	 */
	RedisStats end(Result result, String prefix, int jobs, long endNanos) {
		double seconds = (endNanos - this.startNanos) / 1e9;
		double cpuSeconds = (processCpuNanos() - this.cpuNanos) / 1e9;
		RedisStats stats = RedisStats.take(this.harness.redis()).since(this.redisBefore);
		result.put(prefix.isEmpty() ? "jobsPerSecond" : prefix + Result.THROUGHPUT, jobs / seconds);
		result.put(prefix.isEmpty() ? "seconds" : prefix + "Seconds", seconds);
		result.put(prefix.isEmpty() ? "jvmCpuPercent" : prefix + "JvmCpuPercent", 100 * cpuSeconds / seconds);
		result.put(prefix.isEmpty() ? "jitMillis" : prefix + "JitMillis", Harness.jitMillis() - this.jitMillis);
		result.putCommands(prefix, stats, jobs);
		return stats;
	}

	static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

}
