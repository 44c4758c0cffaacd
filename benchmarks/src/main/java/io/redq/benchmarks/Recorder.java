package io.redq.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.listener.JobContext;

/**
 * Records when handlers start: how many have, and how late each was, in microseconds,
 * after the job's {@code createdAt} or {@code availableAt} (both on the Redis clock, in
 * whole milliseconds; the harness runs on the same machine as Redis, so the clocks
 * agree).
 *
 * @author Redq team
 * @since 0.1.0
 */
class Recorder {

	private final AtomicInteger started = new AtomicInteger();

	private final Semaphore each = new Semaphore(0);

	private volatile long[] latencies = new long[0];

	private volatile boolean fromAvailableAt;

	private volatile long lastStartNanos;

	private volatile long lastStartMicros;

	/**
	 * Start counting afresh.
	 * @param expected how many latencies to keep
	 * @param fromAvailableAt whether to measure from {@code availableAt} (timers) rather
	 * than {@code createdAt}
	 */
	void reset(int expected, boolean fromAvailableAt) {
		this.latencies = new long[expected];
		this.fromAvailableAt = fromAvailableAt;
		this.started.set(0);
		this.each.drainPermits();
	}

	void started(JobContext context) {
		long nanos = System.nanoTime();
		Instant from = this.fromAvailableAt ? context.getAvailableAt() : context.getCreatedAt();
		Instant now = Instant.now();
		long micros = ChronoUnit.MICROS.between(from, now);
		int index = this.started.getAndIncrement();
		long[] latencies = this.latencies;
		if (index < latencies.length) {
			latencies[index] = micros;
		}
		this.lastStartNanos = nanos;
		this.lastStartMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
		this.each.release();
	}

	int started() {
		return this.started.get();
	}

	/**
	 * Wait for the next handler to start.
	 * @param timeout how long to wait
	 * @return when it started ({@link System#nanoTime()})
	 * @throws InterruptedException when interrupted
	 */
	long awaitNext(Duration timeout) throws InterruptedException {
		if (!this.each.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("No job started within " + timeout);
		}
		return this.lastStartNanos;
	}

	/**
	 * Return when the handler that started last started, on the wall clock of
	 * {@link RedisMonitor#now()}.
	 * @return the microseconds since the epoch
	 */
	long lastStartMicros() {
		return this.lastStartMicros;
	}

	long[] latencies() {
		return Arrays.copyOf(this.latencies, Math.min(this.started.get(), this.latencies.length));
	}

}
