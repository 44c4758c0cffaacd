package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Acknowledges the completed jobs of a container in batches, on a thread of its own:
 * while one acknowledgement is in flight, the next ones gather. An acknowledgement that
 * failed (a command timeout, a refusal while a master fails over, Redis away) is sent
 * again every {@value #RESEND_DELAY_MILLIS} ms for as long as a lease lasts: Redis may or
 * may not have run it, and running it again changes nothing, while a job whose
 * acknowledgement is lost runs again.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobAcknowledger {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	/** How long after a failure an acknowledgement goes again. */
	static final long RESEND_DELAY_MILLIS = 500;

	private final String queue;

	private final ListenerOperations operations;

	private final long resendNanos;

	private final ConcurrentLinkedQueue<Completion> pending = new ConcurrentLinkedQueue<>();

	private final ConcurrentLinkedQueue<Completion> failed = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean scheduled = new AtomicBoolean();

	private @Nullable ScheduledThreadPoolExecutor executor;

	/**
	 * Create an instance.
	 * @param queue the queue
	 * @param operations the operations
	 * @param resendFor how long after its first failure an acknowledgement goes again:
	 * the lease of a run, after which another worker may take the job
	 */
	JobAcknowledger(String queue, ListenerOperations operations, Duration resendFor) {
		this.queue = queue;
		this.operations = operations;
		this.resendNanos = resendFor.toNanos();
	}

	void start(ThreadFactory threadFactory) {
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threadFactory);
		executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		this.executor = executor;
	}

	/**
	 * Let an acknowledgement in flight finish rather than interrupt it, then send the
	 * rest on the calling thread, those that failed once more.
	 */
	void stop() {
		this.executor.shutdown();
		try {
			this.executor.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.pending.addAll(drained(this.failed));
		flushNow();
	}

	void add(Lease lease, @Nullable String result, boolean withProgress) {
		this.pending.add(new Completion(lease, result, withProgress, 0));
		schedule();
	}

	private void schedule() {
		if (this.scheduled.compareAndSet(false, true)) {
			try {
				this.executor.execute(this::flush);
			}
			catch (RejectedExecutionException ex) {
				// stopping: acknowledge on this thread
				flushNow();
			}
		}
	}

	private void flush() {
		do {
			this.scheduled.set(false);
			flushNow();
		}
		while (!this.pending.isEmpty() && this.scheduled.compareAndSet(false, true));
	}

	private void flushNow() {
		List<Completion> batch = new ArrayList<>();
		for (Completion completion = this.pending.poll(); completion != null; completion = this.pending.poll()) {
			batch.add(completion);
			if (batch.size() == QueueStore.MAX_BATCH_SIZE || this.pending.isEmpty()) {
				ack(batch);
				batch = new ArrayList<>();
			}
		}
	}

	private void ack(List<Completion> batch) {
		List<Lease> leases = new ArrayList<>(batch.size());
		Map<String, String> results = new HashMap<>();
		Set<String> withProgress = new HashSet<>();
		for (Completion completion : batch) {
			leases.add(completion.lease());
			if (completion.result() != null) {
				results.put(completion.lease().id(), completion.result());
			}
			if (completion.withProgress()) {
				withProgress.add(completion.lease().id());
			}
		}
		try {
			for (String id : this.operations.getLeaseOperations().ack(this.queue, leases, results, withProgress)) {
				logger.warn("Late acknowledgement of job " + id + " refused: its lease expired and another worker "
						+ "has taken the job since");
			}
		}
		catch (ReplicationTimeoutException ex) {
			logger.warn(ex.getMessage() + " (a job whose acknowledgement is lost runs again)");
		}
		catch (RuntimeException ex) {
			resendLater(batch, ex);
		}
	}

	/**
	 * Send a failed acknowledgement again after a pause, unless its jobs' leases have
	 * ended since it first failed or the container stops.
	 */
	private void resendLater(List<Completion> batch, RuntimeException ex) {
		long now = System.nanoTime();
		List<Completion> again = new ArrayList<>(batch.size());
		for (Completion completion : batch) {
			Completion failure = completion.failedAt(now);
			if (now - failure.failedSince() < this.resendNanos) {
				again.add(failure);
			}
		}
		if (again.isEmpty() || this.executor.isShutdown()) {
			logger.error("Could not acknowledge " + batch.size() + " job(s) of queue '" + this.queue
					+ "'; they may run again once their leases expire", ex);
			return;
		}
		if (again.size() < batch.size()) {
			logger.error("Could not acknowledge " + (batch.size() - again.size()) + " job(s) of queue '" + this.queue
					+ "' within their lease; they may run again", ex);
		}
		logger.warn("Could not acknowledge " + again.size() + " job(s) of queue '" + this.queue
				+ "', sending it again in " + RESEND_DELAY_MILLIS + "ms: " + ex);
		this.failed.addAll(again);
		try {
			this.executor.schedule(() -> {
				this.pending.addAll(drained(this.failed));
				schedule();
			}, RESEND_DELAY_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException stopping) {
			// stop() sends them once more
		}
	}

	private static List<Completion> drained(ConcurrentLinkedQueue<Completion> completions) {
		List<Completion> drained = new ArrayList<>();
		for (Completion completion = completions.poll(); completion != null; completion = completions.poll()) {
			drained.add(completion);
		}
		return drained;
	}

	/**
	 * A completed job's lease, its result in Redq's wire format or {@code null}, whether
	 * it wrote progress, which goes with its completion, and when its acknowledgement
	 * first failed ({@link System#nanoTime()}, 0 until it did).
	 */
	private record Completion(Lease lease, @Nullable String result, boolean withProgress, long failedSince) {

		Completion failedAt(long now) {
			return (this.failedSince != 0) ? this : new Completion(this.lease, this.result, this.withProgress, now);
		}

	}

}
