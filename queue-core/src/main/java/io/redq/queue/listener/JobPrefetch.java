package io.redq.queue.listener;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.redq.queue.redis.Lease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Adapts how many jobs a container reserves ahead of its free workers to how long its
 * jobs run: only the jobs its workers would start within a short horizon, so that long
 * jobs never wait in one instance while another has a free worker; and hands back the
 * jobs reserved ahead when the jobs turn slow.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobPrefetch {

	/**
	 * How far ahead a container reserves: only jobs its workers would start within this
	 * time at the recent job duration.
	 */
	static final long HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * The most jobs of one run behind a gate (see {@link #runSize(long)}): bounds what
	 * one call that leaves a gate reads and returns.
	 */
	static final int MAX_RUN = 256;

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final BooleanSupplier running;

	private final int concurrency;

	private final int maxPrefetch;

	/** Moving average of how long handlers ran, -1 until one finished. */
	private volatile long averageJobNanos = -1;

	JobPrefetch(String queue, BooleanSupplier running, ContainerProperties properties) {
		this.queue = queue;
		this.running = running;
		this.concurrency = properties.getConcurrency();
		this.maxPrefetch = properties.getPrefetch();
	}

	/**
	 * Record how long a handler ran.
	 * @param nanos the handler's run time
	 */
	void recordDuration(long nanos) {
		long average = this.averageJobNanos;
		// races between workers lose an update at worst
		this.averageJobNanos = (average < 0) ? nanos : average + (nanos - average) / 8;
	}

	/**
	 * Return how many jobs to reserve ahead now: as many as the workers would start
	 * within {@link #HORIZON_NANOS} at the recent job duration, at most the prefetch
	 * setting; none before a job finished. A worker busy with one job for longer than the
	 * horizon counts as one that starts none: jobs that turn slow stop the prefetch
	 * before the first of them finishes.
	 * @param executions the jobs the container holds
	 */
	int current(Collection<JobExecution> executions) {
		long average = this.averageJobNanos;
		if (average < 0) {
			return 0;
		}
		long now = System.nanoTime();
		int free = this.concurrency;
		for (JobExecution execution : executions) {
			long started = execution.startedNanos();
			if (started != 0 && now - started > HORIZON_NANOS) {
				free--;
			}
		}
		long soon = Math.max(0, free) * HORIZON_NANOS / Math.max(1, average);
		return (int) Math.min(this.maxPrefetch, soon);
	}

	/**
	 * Return how many more jobs may join the run of a job handed over past the gates a
	 * run left: as many as run within {@link #HORIZON_NANOS} at the longer of the recent
	 * job duration and the leaving job's own, the job handed over included, at most
	 * {@link #MAX_RUN} in all; none before a job finished. Fast jobs drain in long runs,
	 * so that the call that hands a run over costs little per job, while a job that comes
	 * to the front of the line waits for about a horizon's worth of jobs at most, however
	 * long they run; the leaving job's duration keeps a slow job's runs short in a queue
	 * whose other jobs are fast.
	 * @param leavingJobNanos how long the handler of the job that leaves ran, 0 when it
	 * did not run
	 * @return the number of jobs that may join, 0 for none
	 */
	int runSize(long leavingJobNanos) {
		long average = this.averageJobNanos;
		if (average < 0) {
			return 0;
		}
		long each = Math.max(1, Math.max(average, leavingJobNanos));
		return (int) Math.min(MAX_RUN, Math.max(1, HORIZON_NANOS / each)) - 1;
	}

	/**
	 * Hand back the prefetched jobs beyond what the workers would start soon, the last
	 * ones first, without using an attempt: when jobs turn slow, the jobs reserved ahead
	 * at the earlier pace go to whichever instance has a free worker instead of waiting
	 * here. Only jobs that waited longer than the horizon go, so that jobs of about the
	 * horizon's length are not handed back and reserved again as the estimate moves.
	 * @param workerPool the worker pool whose waiting jobs to trim
	 */
	void trim(JobWorkerPool workerPool) {
		int excess = workerPool.waitingCount() - current(workerPool.executions());
		if (excess <= 0 || !this.running.getAsBoolean()) {
			return;
		}
		List<Lease> handedBack = workerPool.withdrawWaiting(excess, HORIZON_NANOS);
		if (!handedBack.isEmpty()) {
			logger.debug("Handing back " + handedBack.size() + " prefetched job(s) of queue '" + this.queue
					+ "' that would not start soon");
			workerPool.handBack(handedBack, true);
		}
	}

}
