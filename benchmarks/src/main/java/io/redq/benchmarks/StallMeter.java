package io.redq.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures, while a latency is measured, how late a thread that sleeps 1 ms at a time
 * wakes up: the stalls of the machine (the kernel, other processes, the hypervisor) and
 * of this JVM (GC, safepoints) that every job waiting meanwhile shares, whatever the
 * queue does. A latency percentile is read against these figures.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class StallMeter {

	private static final long SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final Thread thread;

	private volatile boolean stopped;

	// written by the meter's thread, read after it ended
	private long maxNanos;

	private int stallsOver5Ms;

	private StallMeter() {
		this.thread = new Thread(this::measure, "stall-meter");
		this.thread.setDaemon(true);
	}

	static StallMeter start() {
		StallMeter meter = new StallMeter();
		meter.thread.start();
		return meter;
	}

	private void measure() {
		while (!this.stopped) {
			long before = System.nanoTime();
			LockSupport.parkNanos(SLEEP_NANOS);
			long late = System.nanoTime() - before - SLEEP_NANOS;
			this.maxNanos = Math.max(this.maxNanos, late);
			if (late > STALL_NANOS) {
				this.stallsOver5Ms++;
			}
		}
	}

	/**
	 * Stop measuring and put the longest stall and the number of stalls over 5 ms in the
	 * result.
	 * @param result the result
	 * @throws InterruptedException when interrupted while the meter stops
	 */
	void end(Result result) throws InterruptedException {
		this.stopped = true;
		this.thread.join();
		result.put("stallMaxMs", this.maxNanos / 1e6);
		result.put("stallsOver5Ms", this.stallsOver5Ms);
	}

}
