package io.redq.queue.listener;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
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
 * while one acknowledgement is in flight, the next ones gather.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobAcknowledger {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final String queue;

	private final ListenerOperations operations;

	private final ConcurrentLinkedQueue<Completion> pending = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean scheduled = new AtomicBoolean();

	private @Nullable ExecutorService executor;

	JobAcknowledger(String queue, ListenerOperations operations) {
		this.queue = queue;
		this.operations = operations;
	}

	void start(ThreadFactory threadFactory) {
		this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
				threadFactory);
	}

	/**
	 * Let an acknowledgement in flight finish rather than interrupt it, then send the
	 * rest on the calling thread.
	 */
	void stop() {
		this.executor.shutdown();
		try {
			this.executor.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		flushNow();
	}

	void add(Lease lease, @Nullable String result, boolean withProgress) {
		this.pending.add(new Completion(lease, result, withProgress));
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
		List<Lease> batch = new ArrayList<>();
		Map<String, String> results = new HashMap<>();
		Set<String> withProgress = new HashSet<>();
		for (Completion completion = this.pending.poll(); completion != null; completion = this.pending.poll()) {
			batch.add(completion.lease());
			if (completion.result() != null) {
				results.put(completion.lease().id(), completion.result());
			}
			if (completion.withProgress()) {
				withProgress.add(completion.lease().id());
			}
			if (batch.size() == QueueStore.MAX_BATCH_SIZE || this.pending.isEmpty()) {
				ack(batch, results, withProgress);
				batch = new ArrayList<>();
				results = new HashMap<>();
				withProgress = new HashSet<>();
			}
		}
	}

	private void ack(List<Lease> batch, Map<String, String> results, Set<String> withProgress) {
		try {
			for (String id : this.operations.getLeaseOperations().ack(this.queue, batch, results, withProgress)) {
				logger.warn("Late acknowledgement of job " + id + " refused: its lease expired and another worker "
						+ "has taken the job since");
			}
		}
		catch (ReplicationTimeoutException ex) {
			logger.warn(ex.getMessage() + " (a job whose acknowledgement is lost runs again)");
		}
		catch (RuntimeException ex) {
			logger.error("Could not acknowledge " + batch.size() + " job(s) of queue '" + this.queue
					+ "'; they may run again once their leases expire", ex);
		}
	}

	/**
	 * A completed job's lease, its result in Redq's wire format or {@code null}, and
	 * whether it wrote progress, which goes with its completion.
	 */
	private record Completion(Lease lease, @Nullable String result, boolean withProgress) {
	}

}
