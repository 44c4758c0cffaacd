package io.redq.queue.listener;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.Reservation;
import io.redq.queue.redis.ReservedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.util.Assert;

/**
 * Reserves a container's jobs in batches while it has free places (its workers plus the
 * current prefetch) and hands them to the worker pool; when the queue is empty, it blocks
 * on the queue's wake-up key rather than polling, with the next reservation sent behind
 * the wait so that Redis makes it as the wait ends.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobFetcher {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final JobListenerContainer container;

	private final String queue;

	private final RepeatedFailureLog failureLog;

	private final ListenerOperations operations;

	private final int maxPrefetch;

	private final int batchSize;

	private final Duration leaseTime;

	private final Duration pollTimeout;

	private final JobPrefetch prefetch;

	private final JobWorkerPool workerPool;

	private final JobMigrator migrator;

	private @Nullable Thread thread;

	private final Object wakeUpMonitor = new Object();

	private volatile @Nullable RedisConnection wakeUpConnection;

	JobFetcher(JobListenerContainer container, ListenerOperations operations, ContainerProperties properties,
			JobPrefetch prefetch, JobWorkerPool workerPool, JobMigrator migrator) {
		this.container = container;
		this.queue = container.getQueue();
		this.failureLog = new RepeatedFailureLog(logger, "reserve jobs of queue '" + this.queue + "'");
		this.operations = operations;
		this.maxPrefetch = properties.getPrefetch();
		this.batchSize = properties.getBatchSize();
		this.leaseTime = properties.getLeaseTime();
		this.pollTimeout = properties.getPollTimeout();
		this.prefetch = prefetch;
		this.workerPool = workerPool;
		this.migrator = migrator;
	}

	/**
	 * Start fetching for a container run.
	 * @param permits the run's permits, one per place
	 * @param threadFactory the factory of the fetcher thread
	 */
	void start(Semaphore permits, ThreadFactory threadFactory) {
		this.thread = threadFactory.newThread(() -> fetch(permits));
		this.thread.start();
	}

	/**
	 * Wait for the fetcher of the last run to end; it ends once the container stopped.
	 * @param millis how long to wait at most
	 */
	void join(long millis) throws InterruptedException {
		this.thread.join(millis);
	}

	/**
	 * Reserve jobs while this run of the container lasts: a fetcher that outlived a stop
	 * (it ended after the shutdown timeout) ends instead of joining the next run. The
	 * stop closes the wake-up connection, not the fetcher, as a new run may have opened
	 * its own by then.
	 */
	private void fetch(Semaphore permits) {
		int failures = 0;
		boolean consuming = false;
		// the latest reservation found nothing: the next one waits for a wake-up
		boolean idle = false;
		while (this.container.isCurrentRun(permits)) {
			try {
				int capacity = acquirePermits(permits);
				if (capacity == 0) {
					continue;
				}
				if (!this.container.isCurrentRun(permits)) {
					permits.release(capacity);
					break;
				}
				// the lease starts after this in Redis: counted from here, it never ends
				// later here (one reserved behind a wait for a wake-up ends earlier here,
				// by the wait). Every job is reserved with the full lease, which its run
				// starts on without another call while two thirds of it are left here:
				// the container reserves only what its workers start within about 100
				// ms (see JobPrefetch), and waits at most the poll timeout (5 s against
				// 30 s by default).
				long reservedNanos = System.nanoTime();
				Reservation reservation;
				try {
					reservation = idle ? this.operations.reserveOnWakeUp(wakeUpConnection(), this.queue, capacity,
							this.leaseTime, this.pollTimeout)
							: this.operations.reserve(this.queue, capacity, this.leaseTime);
				}
				catch (RuntimeException ex) {
					permits.release(capacity);
					throw ex;
				}
				if (!consuming) {
					consuming = true;
					this.container.consuming(permits);
				}
				// each reserved job keeps its permit until it finishes
				permits.release(capacity - reservation.jobs().size());
				this.migrator.wakeUpAt(reservation.redisTime(), reservation.nextDue());
				if (!reservation.missing().isEmpty()) {
					logger.warn("Ready job(s) " + reservation.missing() + " of queue '" + this.queue
							+ "' had no data in Redis (deleted outside Redq?); recorded dead with that reason");
				}
				for (ReservedJob job : reservation.jobs()) {
					this.workerPool.submit(job, permits, reservedNanos + this.leaseTime.toNanos(), null);
				}
				idle = reservation.jobs().isEmpty();
				failures = 0;
				this.failureLog.succeeded();
			}
			catch (RuntimeException ex) {
				if (!this.container.isCurrentRun(permits)) {
					break;
				}
				closeWakeUpConnection();
				idle = false;
				failures++;
				// at most a second: workers resume within about a second of Redis
				// answering again
				long pause = Math.min(1000, 100L << Math.min(failures, 4));
				this.failureLog.failed(ex, "retrying in " + pause + "ms");
				sleep(pause);
			}
		}
	}

	/**
	 * Wait until enough jobs finished to refill half the prefetch (or a worker is free,
	 * without prefetch), then take the free permits, at most a batch. The permits of the
	 * prefetch places not used now are withheld.
	 */
	private int acquirePermits(Semaphore permits) {
		int prefetch = this.prefetch.current(this.workerPool.executions());
		int withheld = this.maxPrefetch - prefetch;
		int refill = Math.max(1, prefetch / 2);
		try {
			if (!permits.tryAcquire(refill + withheld, 100, TimeUnit.MILLISECONDS)) {
				return 0;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 0;
		}
		int taken = refill + withheld + permits.drainPermits();
		int capacity = Math.min(taken - withheld, this.batchSize);
		permits.release(taken - capacity);
		return capacity;
	}

	private RedisConnection wakeUpConnection() {
		synchronized (this.wakeUpMonitor) {
			// a stop closes the connection to end the wait: none opens after it
			Assert.state(this.container.isRunning(), "Container stopped");
			RedisConnection connection = this.wakeUpConnection;
			if (connection == null) {
				connection = this.operations.openWakeUpConnection();
				this.wakeUpConnection = connection;
			}
			return connection;
		}
	}

	/**
	 * Close the connection the fetcher waits on, which ends its wait.
	 */
	void closeWakeUpConnection() {
		RedisConnection connection;
		synchronized (this.wakeUpMonitor) {
			connection = this.wakeUpConnection;
			this.wakeUpConnection = null;
		}
		if (connection != null) {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close wake-up connection", ex);
			}
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
