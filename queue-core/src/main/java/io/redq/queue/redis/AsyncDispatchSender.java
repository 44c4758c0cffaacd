package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.Due;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The asynchronous dispatches of a {@link RedisJobDispatcher} that wait to be sent, and
 * the thread that sends them: as many as are pending, up to one batch, grouped by queue
 * into one script call each. The thread starts with the first dispatch; stopping sends
 * what is pending within the close timeout and fails the rest.
 *
 * @author Redq team
 */
final class AsyncDispatchSender {

	/** The most asynchronous dispatches waiting to be sent. */
	private static final int MAX_PENDING = 10 * QueueStore.MAX_BATCH_SIZE;

	/** Tells the sender to stop once the dispatches before it are sent. */
	private static final AsyncDispatch STOP = new AsyncDispatch(
			new PreparedJob("", "", "", EnqueueCommand.withGeneratedId("", Due.NOW, ""), null),
			new CompletableFuture<>());

	/** The asynchronous dispatches not yet sent; a caller waits when it is full. */
	private final BlockingQueue<AsyncDispatch> pending = new LinkedBlockingQueue<>(MAX_PENDING);

	private final Function<List<PreparedJob>, List<DispatchResult>> send;

	private Duration closeTimeout = Duration.ofSeconds(10);

	private volatile boolean closed;

	private volatile @Nullable Thread sender;

	/**
	 * Create a sender.
	 * @param send sends jobs of one queue and says what happened to each, in order; it
	 * throws only when Redis may not have the jobs, as their futures then fail
	 */
	AsyncDispatchSender(Function<List<PreparedJob>, List<DispatchResult>> send) {
		this.send = send;
	}

	void setCloseTimeout(Duration closeTimeout) {
		this.closeTimeout = closeTimeout;
	}

	/**
	 * Add a job to the pending dispatches, waiting for room if they are full.
	 * @param job the job
	 * @return the result, once Redis has the job
	 * @throws IllegalStateException when the sender is stopped or the wait is interrupted
	 */
	CompletableFuture<DispatchResult> submit(PreparedJob job) {
		AsyncDispatch dispatch = new AsyncDispatch(job, new CompletableFuture<>());
		try {
			if (this.sender == null || this.closed) {
				startSender();
			}
			this.pending.put(dispatch);
			if (this.closed && this.pending.remove(dispatch)) {
				// closed meanwhile, and the sender did not take it
				throw closed();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			job.failed(ex);
			throw new IllegalStateException("Interrupted while waiting for room among the pending dispatches", ex);
		}
		catch (IllegalStateException ex) {
			job.failed(ex);
			throw ex;
		}
		return dispatch.future();
	}

	private synchronized void startSender() {
		if (this.closed) {
			throw closed();
		}
		if (this.sender == null) {
			Thread sender = new CustomizableThreadFactory("redq-dispatcher-").newThread(this::sendPending);
			sender.setDaemon(true);
			this.sender = sender;
			sender.start();
		}
	}

	private static IllegalStateException closed() {
		return new IllegalStateException("The dispatcher is closed: its application is shutting down");
	}

	/**
	 * Send the pending dispatches, up to one batch per script call, until the sender is
	 * stopped and none is left, or another sender replaced this one.
	 */
	private void sendPending() {
		List<AsyncDispatch> batch = new ArrayList<>(QueueStore.MAX_BATCH_SIZE);
		while (this.sender == Thread.currentThread()) {
			try {
				AsyncDispatch first = this.closed ? this.pending.poll() : this.pending.take();
				if (first == null || first == STOP) {
					return;
				}
				batch.add(first);
			}
			catch (InterruptedException ex) {
				// only stopping ends the sender, once the dispatches before it are sent
				continue;
			}
			this.pending.drainTo(batch, QueueStore.MAX_BATCH_SIZE - 1);
			boolean stop = batch.remove(STOP);
			Map<String, List<AsyncDispatch>> byQueue = new LinkedHashMap<>();
			batch.forEach((dispatch) -> byQueue.computeIfAbsent(dispatch.job().queue(), (queue) -> new ArrayList<>())
				.add(dispatch));
			byQueue.values().forEach(this::send);
			batch.clear();
			if (stop) {
				return;
			}
		}
	}

	private void send(List<AsyncDispatch> dispatches) {
		List<DispatchResult> results;
		try {
			results = this.send.apply(dispatches.stream().map(AsyncDispatch::job).toList());
		}
		catch (RuntimeException ex) {
			dispatches.forEach((dispatch) -> dispatch.fail(ex));
			return;
		}
		for (int i = 0; i < dispatches.size(); i++) {
			dispatches.get(i).future().complete(results.get(i));
		}
	}

	/**
	 * Take dispatches again after {@link #stop()}.
	 */
	synchronized void start() {
		this.closed = false;
	}

	/**
	 * Send the dispatches still pending, waiting at most the close timeout for Redis to
	 * take them, then stop the thread that sends them. Those not sent by then fail; later
	 * ones are refused until {@link #start()}.
	 */
	void stop() {
		Thread sender;
		synchronized (this) {
			this.closed = true;
			sender = this.sender;
		}
		if (sender == null) {
			return;
		}
		try {
			long deadline = System.nanoTime() + this.closeTimeout.toNanos();
			if (this.pending.offer(STOP, this.closeTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
				sender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		synchronized (this) {
			// a sender still waiting for Redis ends after that call
			this.sender = null;
		}
		List<AsyncDispatch> unsent = new ArrayList<>();
		this.pending.drainTo(unsent);
		unsent.remove(STOP);
		IllegalStateException ex = new IllegalStateException("Redis did not take this job within "
				+ this.closeTimeout.toMillis() + " ms of the dispatcher closing; it was not sent");
		unsent.forEach((dispatch) -> dispatch.fail(ex));
	}

	/**
	 * Return whether dispatches are taken: from creation or {@link #start()} until
	 * {@link #stop()}.
	 * @return whether dispatches are taken
	 */
	boolean isRunning() {
		return !this.closed;
	}

	private record AsyncDispatch(PreparedJob job, CompletableFuture<DispatchResult> future) {

		void fail(Exception ex) {
			this.future.completeExceptionally(ex);
			this.job.failed(ex);
		}

	}

}
