package io.redq.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU time of this JVM's threads at one moment, by kind: a thread's name without its
 * numbers ({@code redq-bench-worker-3} is a {@code redq-bench-worker}).
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ThreadCpu {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	/**
	 * The CPU time of the threads that ended, by thread id, which the JVM no longer
	 * reports.
	 */
	private static final Map<Long, Ended> ENDED = new ConcurrentHashMap<>();

	private final Map<Long, Long> live = new HashMap<>();

	private final Set<Long> ended;

	private ThreadCpu() {
		this.ended = Set.copyOf(ENDED.keySet());
		for (long id : THREADS.getAllThreadIds()) {
			this.live.put(id, THREADS.getThreadCpuTime(id));
		}
	}

	static ThreadCpu take() {
		return new ThreadCpu();
	}

	/**
	 * Record the CPU time of the calling thread as it ends, so that a phase it ran in
	 * counts it: the harness's callers end before their phase does.
	 */
	static void ending() {
		Thread thread = Thread.currentThread();
		ENDED.put(thread.getId(), new Ended(kind(thread.getName()), THREADS.getCurrentThreadCpuTime()));
	}

	/**
	 * Return the CPU time each kind of thread used since this snapshot, most first.
	 * @return nanoseconds by kind
	 */
	Map<String, Long> used() {
		Map<String, Long> byKind = new HashMap<>();
		for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
			long cpu = (thread != null && !ENDED.containsKey(thread.getThreadId()))
					? THREADS.getThreadCpuTime(thread.getThreadId()) : -1;
			if (cpu >= 0) {
				// a thread started since used all its time since
				long used = cpu - this.live.getOrDefault(thread.getThreadId(), 0L);
				byKind.merge(kind(thread.getThreadName()), used, Long::sum);
			}
		}
		ENDED.forEach((id, thread) -> {
			if (!this.ended.contains(id)) {
				byKind.merge(thread.kind(), thread.nanos() - this.live.getOrDefault(id, 0L), Long::sum);
			}
		});
		Map<String, Long> sorted = new LinkedHashMap<>();
		byKind.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((kind) -> sorted.put(kind.getKey(), kind.getValue()));
		return sorted;
	}

	private static String kind(String threadName) {
		return threadName.replaceAll("-?\\d+", "");
	}

	private record Ended(String kind, long nanos) {
	}

}
