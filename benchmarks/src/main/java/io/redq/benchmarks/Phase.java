package io.redq.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.test.RedisServer;

/**
 * A measured stretch of a scenario: its wall time, the CPU time of this JVM and of each
 * kind of its threads, the time its JIT compiler took, and what Redis did meanwhile: on a
 * cluster, every master's figures added up, and each master's on its own.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class Phase {

	private final Harness harness;

	private final List<RedisStats> mastersBefore;

	private final RedisStats redisBefore;

	private final long startNanos;

	private final long cpuNanos;

	private final ThreadCpu threadCpu;

	private final long jitMillis;

	private Phase(Harness harness) {
		this.harness = harness;
		this.mastersBefore = RedisStats.perMaster(harness.redis());
		this.redisBefore = RedisStats.sum(this.mastersBefore);
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
		List<RedisStats> masters = RedisStats.perMaster(this.harness.redis());
		RedisStats stats = RedisStats.sum(masters).since(this.redisBefore);
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
		if (masters.size() > 1) {
			result.put(prefix.isEmpty() ? "masters" : prefix + "Masters", perMaster(masters, stats, jobs));
		}
		return stats;
	}

	/**
	 * Describe what each master of a cluster did, and log it: its commands and their
	 * share of all masters' commands, and its CPU time per job of the phase, all of it
	 * and in user mode alone.
	 */
	private List<Map<String, Object>> perMaster(List<RedisStats> masters, RedisStats all, int jobs) {
		List<RedisServer> servers = this.harness.redis().masters();
		List<Map<String, Object>> described = new ArrayList<>();
		for (int i = 0; i < masters.size(); i++) {
			RedisStats stats = masters.get(i).since(this.mastersBefore.get(i));
			Map<String, Object> master = new LinkedHashMap<>();
			master.put("port", servers.get(i).port());
			master.put("commands", stats.total());
			master.put("commandShare", Result.round(100.0 * stats.total() / Math.max(1, all.total())));
			master.put("scriptCallsPerJob", Result.round((double) stats.scriptCalls() / jobs));
			master.put("redisCpuMicrosPerJob", Result.round(stats.cpuSeconds() * 1e6 / jobs));
			master.put("redisUserCpuMicrosPerJob", Result.round(stats.userSeconds() * 1e6 / jobs));
			master.put("redisCpuSeconds", Result.round(stats.cpuSeconds()));
			this.harness.log("  master " + master);
			described.add(master);
		}
		return described;
	}

	static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return 0;
	}

}
