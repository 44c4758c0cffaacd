package io.redq.queue.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;

/**
 * Logs a call that fails over and over, such as a container's reservations while Redis is
 * down: the first failure at once, then at most one line a minute with the count of
 * failures since, and once when the call works again.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RepeatedFailureLog {

	private static final Duration INTERVAL = Duration.ofMinutes(1);

	private final Log logger;

	private final long intervalNanos;

	private final String call;

	// guarded by this
	private int failures;

	// guarded by this
	private int unlogged;

	// guarded by this
	private long firstNanos;

	// guarded by this
	private long loggedNanos;

	/**
	 * @param logger the logger to write to
	 * @param call what fails, e.g. "reserve jobs of queue 'mail'"
	 */
	RepeatedFailureLog(Log logger, String call) {
		this(logger, call, INTERVAL);
	}

	RepeatedFailureLog(Log logger, String call, Duration interval) {
		this.logger = logger;
		this.call = call;
		this.intervalNanos = interval.toNanos();
	}

	/**
	 * Record a failure, and log it when it is the first or a minute passed since the last
	 * line.
	 * @param ex the failure
	 * @param next what happens next, e.g. "retrying in 200ms"
	 */
	synchronized void failed(RuntimeException ex, String next) {
		long now = System.nanoTime();
		this.failures++;
		if (this.failures == 1) {
			this.firstNanos = now;
			this.loggedNanos = now;
			this.logger.warn("Could not " + this.call + ", " + next
					+ " (repeated failures are logged at most once a minute): " + ex);
		}
		else if (now - this.loggedNanos >= this.intervalNanos) {
			this.logger.warn("Could not " + this.call + ": " + (this.unlogged + 1) + " more failure(s) in the last "
					+ Duration.ofNanos(now - this.loggedNanos).toSeconds() + "s, " + next + ": " + ex);
			this.loggedNanos = now;
			this.unlogged = 0;
		}
		else {
			this.unlogged++;
		}
	}

	/**
	 * Record that the call worked, and log it when it failed before.
	 */
	synchronized void succeeded() {
		if (this.failures > 0) {
			this.logger.info("Could " + this.call + " again, after " + this.failures + " failure(s) over "
					+ Duration.ofNanos(System.nanoTime() - this.firstNanos).toSeconds() + "s");
			this.failures = 0;
			this.unlogged = 0;
		}
	}

}
