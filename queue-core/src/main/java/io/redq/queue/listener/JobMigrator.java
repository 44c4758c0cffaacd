package io.redq.queue.listener;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.Migration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Moves a queue's due delayed jobs and expired leases, and hands the completions of its
 * batch members over to their batches. Sleeps until the next of them is due (or the poll
 * timeout passes), and is woken earlier when a reservation learns of an earlier due time.
 * With nothing delayed, reserved or dead it sleeps until a reservation reports a due
 * time, so an idle queue costs only the fetcher's wait.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobMigrator {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final RepeatedFailureLog failureLog;

	private final BooleanSupplier running;

	private final ListenerOperations operations;

	private final long pollTimeout;

	private final int maxStalls;

	private @Nullable ScheduledExecutorService scheduler;

	private @Nullable ScheduledFuture<?> next;

	private long nextRunNanos;

	JobMigrator(String queue, BooleanSupplier running, ListenerOperations operations, ContainerProperties properties) {
		this.queue = queue;
		this.failureLog = new RepeatedFailureLog(logger, "migrate jobs of queue '" + queue + "'");
		this.running = running;
		this.operations = operations;
		this.pollTimeout = properties.getPollTimeout().toMillis();
		this.maxStalls = properties.getMaxStalls();
	}

	synchronized void start(ScheduledExecutorService scheduler) {
		this.scheduler = scheduler;
		// a restarted container starts afresh: the last run's schedule died with its
		// scheduler
		this.next = null;
		scheduleIn(0);
	}

	/**
	 * Make sure the migrator runs by the given due time.
	 * @param redisTime the Redis clock now
	 * @param nextDue the due time on the Redis clock, or -1 for none
	 */
	void wakeUpAt(long redisTime, long nextDue) {
		if (nextDue >= 0) {
			scheduleIn(Math.max(0, nextDue - redisTime));
		}
	}

	/**
	 * Schedule a run in {@code delayMillis}, unless one is scheduled sooner already.
	 */
	private synchronized void scheduleIn(long delayMillis) {
		long runAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
		if (!this.running.getAsBoolean() || (this.next != null && runAt - this.nextRunNanos >= 0)) {
			return;
		}
		if (this.next != null) {
			this.next.cancel(false);
		}
		this.nextRunNanos = runAt;
		this.next = this.scheduler.schedule(this::run, delayMillis, TimeUnit.MILLISECONDS);
	}

	private void run() {
		synchronized (this) {
			// from now on a wake-up schedules another run: this one may read Redis
			// before the job that caused it
			this.next = null;
		}
		long delay;
		try {
			Migration migration = this.operations.migrate(this.queue, this.maxStalls);
			int handedOver = migration.handOvers() ? this.operations.handOver(this.queue) : 0;
			this.failureLog.succeeded();
			if (migration.isPartial(ListenerOperations.MIGRATION_BATCH_SIZE)
					|| handedOver >= BatchOperations.HAND_OVER_BATCH_SIZE) {
				delay = 0;
			}
			else if (migration.nextDue() >= 0) {
				delay = Math.min(this.pollTimeout, Math.max(1, migration.nextDue() - migration.redisTime()));
			}
			else {
				// nothing is delayed, reserved or dead: the fetcher's next reservation,
				// at the latest after its poll timeout, tells when there is work again
				return;
			}
		}
		catch (RuntimeException ex) {
			delay = Math.min(1000, this.pollTimeout);
			this.failureLog.failed(ex, "retrying in " + delay + "ms");
			scheduleIn(delay);
			return;
		}
		scheduleIn(delay);
	}

}
