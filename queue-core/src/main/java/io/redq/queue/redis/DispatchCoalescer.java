package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.ReplicationTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Sends the dispatches of a {@link RedisJobDispatcher}, synchronous and asynchronous
 * alike, coalesced per queue as a database's group commit does: while a call for a queue
 * is in flight, the dispatches for that queue that arrive meanwhile wait, and are sent
 * together in one script call once its reply came, up to a bound of jobs and characters.
 * A lone dispatch is sent at once on its caller's thread; nothing waits for a timer. A
 * queue's dispatches are sent in the order they came.
 * <p>
 * Each dispatch keeps its own result, failure and timeout: a caller that times out while
 * its job waits takes the job back (it is not sent), and one that times out while its job
 * is in flight leaves the job's fate to the shared call, after which that queue's next
 * call goes without waiting for it. The thread that sends the calls after the first and
 * completes the asynchronous dispatches starts when first needed and ends on
 * {@link #stop()}, which waits for the asynchronous dispatches pending.
 *
 * @author Redq team
 */
final class DispatchCoalescer {

	/** The default most characters of job JSON in one coalesced call: 1 Mi. */
	static final long DEFAULT_MAX_SIZE = 1024 * 1024;

	/** The most asynchronous dispatches pending at once. */
	private static final int MAX_PENDING = 10 * QueueStore.MAX_BATCH_SIZE;

	private final EnqueueOperations enqueueOperations;

	/** Reports a job that Redis has to the metrics and interceptors. */
	private final Consumer<PreparedJob> dispatched;

	private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

	/** The asynchronous dispatches not yet completed; a caller waits while full. */
	private final Semaphore asyncRoom = new Semaphore(MAX_PENDING);

	private final Set<Dispatch> asyncPending = ConcurrentHashMap.newKeySet();

	/** Whether synchronous dispatches share calls too; asynchronous ones always do. */
	private volatile boolean enabled = true;

	private volatile int maxJobs = QueueStore.MAX_BATCH_SIZE;

	private volatile long maxSize = DEFAULT_MAX_SIZE;

	private volatile int maxInFlight = 2;

	private volatile Duration timeout = RedisJobDispatcher.DEFAULT_TIMEOUT;

	private Duration closeTimeout = Duration.ofSeconds(10);

	private volatile boolean closed;

	private @Nullable ThreadPoolExecutor executor;

	private volatile @Nullable Thread thread;

	/**
	 * Create an instance.
	 * @param enqueueOperations sends the calls
	 * @param dispatched reports a job that Redis has; it does not throw
	 */
	DispatchCoalescer(EnqueueOperations enqueueOperations, Consumer<PreparedJob> dispatched) {
		this.enqueueOperations = enqueueOperations;
		this.dispatched = dispatched;
	}

	void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	void setMaxJobs(int maxJobs) {
		Assert.isTrue(maxJobs > 0 && maxJobs <= QueueStore.MAX_BATCH_SIZE, () -> "maxJobs must be between 1 and "
				+ QueueStore.MAX_BATCH_SIZE + " (the most jobs of one script call); got " + maxJobs);
		this.maxJobs = maxJobs;
	}

	void setMaxSize(long maxSize) {
		Assert.isTrue(maxSize > 0, () -> "maxSize must be positive; got " + maxSize);
		this.maxSize = maxSize;
	}

	void setMaxInFlight(int maxInFlight) {
		Assert.isTrue(maxInFlight > 0, () -> "maxInFlight must be positive; got " + maxInFlight);
		this.maxInFlight = maxInFlight;
	}

	void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	void setCloseTimeout(Duration closeTimeout) {
		this.closeTimeout = closeTimeout;
	}

	/**
	 * Send a job and wait for Redis to take it.
	 * @param job the job
	 * @return what happened to the job
	 * @throws DispatchTimeoutException when Redis did not take it within the timeout
	 */
	DispatchResult dispatch(PreparedJob job) {
		Dispatch dispatch = new Dispatch(job, false);
		Lane lane = lane(job.queue());
		DispatchResult result;
		try {
			submit(lane, dispatch);
			result = await(lane, dispatch);
		}
		catch (RuntimeException ex) {
			job.failed(ex);
			throw ex;
		}
		this.dispatched.accept(job);
		return result;
	}

	private DispatchResult await(Lane lane, Dispatch dispatch) {
		Duration timeout = this.timeout;
		try {
			return dispatch.reply.get(this.enqueueOperations.replyTimeout(timeout).toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw timedOut(lane, dispatch, timeout);
		}
		catch (ExecutionException ex) {
			throw (RuntimeException) ex.getCause();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			boolean sent = !lane.withdraw(dispatch);
			throw new IllegalStateException("Interrupted while waiting for Redis to take job '" + dispatch.job.id()
					+ "' of queue '" + lane.queue + "'; "
					+ (sent ? "the call is not cancelled and may still enqueue it" : "it was not sent"), ex);
		}
	}

	/**
	 * Take back a dispatch that timed out if it was not sent, else let the queue's next
	 * call go without waiting for the reply of this one.
	 */
	private DispatchTimeoutException timedOut(Lane lane, Dispatch dispatch, Duration timeout) {
		boolean sent = !lane.withdraw(dispatch);
		if (sent) {
			sendNext(lane, dispatch.call());
		}
		return new DispatchTimeoutException(lane.queue, 1, timeout, sent);
	}

	/**
	 * Send a job without waiting for Redis.
	 * @param job the job
	 * @return what happened to the job, once Redis has it; a
	 * {@link DispatchTimeoutException} when its call had no reply within the timeout
	 * @throws IllegalStateException when closed, or interrupted while waiting for room
	 */
	CompletableFuture<DispatchResult> dispatchAsync(PreparedJob job) {
		Dispatch dispatch = new Dispatch(job, true);
		try {
			if (this.closed) {
				throw closed();
			}
			this.asyncRoom.acquire();
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
		this.asyncPending.add(dispatch);
		submit(lane(job.queue()), dispatch);
		return dispatch.future;
	}

	private static IllegalStateException closed() {
		return new IllegalStateException("The dispatcher is closed: its application is shutting down");
	}

	private Lane lane(String queue) {
		return this.lanes.computeIfAbsent(queue, Lane::new);
	}

	private void submit(Lane lane, Dispatch dispatch) {
		Call call = (this.enabled || dispatch.async) ? lane.add(dispatch, this.maxJobs, this.maxSize, this.maxInFlight)
				: dispatch.sentAlone();
		if (call != null) {
			send(lane, call);
		}
	}

	private void send(Lane lane, Call call) {
		CompletableFuture<List<DispatchResult>> reply;
		try {
			reply = this.enqueueOperations.enqueueAsync(lane.queue,
					call.dispatches.stream().map((dispatch) -> dispatch.job.command()).toList(), null);
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((results, ex) -> replied(lane, call, results, ex));
		if (call.hasAsync() && !reply.isDone()) {
			Duration timeout = this.timeout;
			CompletableFuture
				.delayedExecutor(this.enqueueOperations.replyTimeout(timeout).toNanos(), TimeUnit.NANOSECONDS,
						this::execute)
				.execute(() -> asyncTimedOut(lane, call, timeout));
		}
	}

	/**
	 * Complete a call's dispatches with its reply: the synchronous ones at once, on the
	 * thread that has the reply (Lettuce's), so that their callers go on; then the
	 * queue's next call and the asynchronous ones on the sending thread, which may block.
	 */
	private void replied(Lane lane, Call call, @Nullable List<DispatchResult> results, @Nullable Throwable failure) {
		call.replied.set(true);
		Call next = lane.finished(call, this.maxJobs, this.maxSize, this.maxInFlight);
		for (int i = 0; i < call.dispatches.size(); i++) {
			Dispatch dispatch = call.dispatches.get(i);
			if (dispatch.async) {
				continue;
			}
			if (failure != null) {
				dispatch.reply.completeExceptionally(failure(dispatch, failure));
			}
			else {
				dispatch.reply.complete(results.get(i));
			}
		}
		if (next != null || call.hasAsync()) {
			execute(() -> {
				if (next != null) {
					send(lane, next);
				}
				for (int i = 0; i < call.dispatches.size(); i++) {
					Dispatch dispatch = call.dispatches.get(i);
					if (dispatch.async) {
						complete(dispatch, (results != null) ? results.get(i) : null,
								(failure != null) ? failure(dispatch, failure) : null);
					}
				}
			});
		}
	}

	private static RuntimeException failure(Dispatch dispatch, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
		if (cause instanceof ReplicationTimeoutException ex) {
			return ex.forJobs(List.of(dispatch.job.id()));
		}
		return (cause instanceof RuntimeException ex) ? ex
				: new IllegalStateException("Redis failed to take job '" + dispatch.job.id() + "'", cause);
	}

	/**
	 * Complete an asynchronous dispatch once: with its result, or its failure.
	 */
	private void complete(Dispatch dispatch, @Nullable DispatchResult result, @Nullable RuntimeException failure) {
		if (!dispatch.done.compareAndSet(false, true)) {
			return;
		}
		if (failure != null) {
			dispatch.job.failed(failure);
			dispatch.future.completeExceptionally(failure);
		}
		else {
			this.dispatched.accept(dispatch.job);
			dispatch.future.complete(result);
		}
		this.asyncPending.remove(dispatch);
		this.asyncRoom.release();
	}

	/**
	 * Fail the asynchronous dispatches of a call with no reply within their timeout, and
	 * let the queue's next call go.
	 */
	private void asyncTimedOut(Lane lane, Call call, Duration timeout) {
		if (call.replied.get()) {
			return;
		}
		sendNext(lane, call);
		for (Dispatch dispatch : call.dispatches) {
			if (dispatch.async) {
				complete(dispatch, null, new DispatchTimeoutException(lane.queue, 1, timeout, true));
			}
		}
	}

	private void sendNext(Lane lane, Call call) {
		Call next = lane.finished(call, this.maxJobs, this.maxSize, this.maxInFlight);
		if (next != null) {
			send(lane, next);
		}
	}

	/**
	 * Run a task on the sending thread, started when first needed; once closed, on the
	 * calling thread.
	 */
	private void execute(Runnable task) {
		ThreadPoolExecutor executor;
		synchronized (this) {
			if (!this.closed && this.executor == null) {
				CustomizableThreadFactory threads = new CustomizableThreadFactory("redq-dispatcher-");
				threads.setDaemon(true);
				this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
						(runnable) -> {
							Thread thread = threads.newThread(runnable);
							this.thread = thread;
							return thread;
						});
			}
			executor = this.executor;
		}
		if (executor != null) {
			executor.execute(task);
		}
		else {
			task.run();
		}
	}

	/**
	 * Take asynchronous dispatches again after {@link #stop()}.
	 */
	synchronized void start() {
		this.closed = false;
	}

	/**
	 * Wait at most the close timeout for Redis to take the asynchronous dispatches
	 * pending, fail those not sent by then, and stop the sending thread; later
	 * asynchronous dispatches are refused until {@link #start()}.
	 */
	void stop() {
		ThreadPoolExecutor executor;
		synchronized (this) {
			this.closed = true;
			executor = this.executor;
			this.executor = null;
		}
		long deadline = System.nanoTime() + this.closeTimeout.toNanos();
		try {
			for (Dispatch dispatch : List.copyOf(this.asyncPending)) {
				dispatch.future.handle((result, ex) -> result)
					.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
		}
		catch (TimeoutException | ExecutionException ex) {
			// failed below if not sent
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		IllegalStateException ex = new IllegalStateException("Redis did not take this job within "
				+ this.closeTimeout.toMillis() + " ms of the dispatcher closing; it was not sent");
		for (Dispatch dispatch : List.copyOf(this.asyncPending)) {
			if (lane(dispatch.job.queue()).withdraw(dispatch)) {
				complete(dispatch, null, ex);
			}
		}
		if (executor != null) {
			stop(executor, deadline);
		}
	}

	private void stop(ThreadPoolExecutor executor, long deadline) {
		executor.shutdown();
		Thread thread = this.thread;
		try {
			if (executor.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
					&& thread != null) {
				thread.join();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Return whether asynchronous dispatches are taken: from creation or {@link #start()}
	 * until {@link #stop()}.
	 * @return whether dispatches are taken
	 */
	boolean isRunning() {
		return !this.closed;
	}

	/**
	 * The dispatches of one queue: those waiting, and the call in flight.
	 */
	private static final class Lane {

		private final String queue;

		private final ArrayDeque<Dispatch> waiting = new ArrayDeque<>();

		/** How many of the waiting dispatches are asynchronous. */
		private int asyncWaiting;

		private final List<Call> inFlight = new ArrayList<>();

		Lane(String queue) {
			this.queue = queue;
		}

		/**
		 * Add a dispatch, and return the call to send now if there is room in flight.
		 */
		synchronized @Nullable Call add(Dispatch dispatch, int maxJobs, long maxSize, int maxInFlight) {
			this.waiting.add(dispatch);
			if (dispatch.async) {
				this.asyncWaiting++;
			}
			return nextIfRoom(maxJobs, maxSize, maxInFlight);
		}

		/**
		 * End a call in flight (replied or timed out), and return the next call to send,
		 * if dispatches wait and there is room in flight.
		 */
		synchronized @Nullable Call finished(Call call, int maxJobs, long maxSize, int maxInFlight) {
			if (!this.inFlight.remove(call)) {
				return null;
			}
			return nextIfRoom(maxJobs, maxSize, maxInFlight);
		}

		/**
		 * The next call, when dispatches wait and none is in flight, or up to the most in
		 * flight when no asynchronous dispatch waits or is in flight: one thread's
		 * asynchronous dispatches are sent one call after the other's reply, so that they
		 * are stored in order whichever connection a call takes; synchronous ones of
		 * different threads have no order to keep.
		 */
		private @Nullable Call nextIfRoom(int maxJobs, long maxSize, int maxInFlight) {
			if (this.waiting.isEmpty() || (!this.inFlight.isEmpty() && (this.inFlight.size() >= maxInFlight
					|| this.asyncWaiting > 0 || this.inFlight.stream().anyMatch(Call::hasAsync)))) {
				return null;
			}
			Call call = next(maxJobs, maxSize);
			this.inFlight.add(call);
			return call;
		}

		/** The waiting dispatches in order, up to the bounds, at least one. */
		private Call next(int maxJobs, long maxSize) {
			List<Dispatch> dispatches = new ArrayList<>(Math.min(maxJobs, this.waiting.size()));
			long size = 0;
			while (!this.waiting.isEmpty() && dispatches.size() < maxJobs) {
				Dispatch dispatch = this.waiting.peek();
				size += dispatch.job.command().body().length();
				if (size > maxSize && !dispatches.isEmpty()) {
					break;
				}
				dispatches.add(this.waiting.poll());
				if (dispatch.async) {
					this.asyncWaiting--;
				}
			}
			Call call = new Call(dispatches);
			dispatches.forEach((dispatch) -> dispatch.call = call);
			return call;
		}

		/**
		 * Take back a dispatch not sent yet.
		 * @return whether it was waiting, and so is not sent
		 */
		synchronized boolean withdraw(Dispatch dispatch) {
			if (dispatch.call != null || !this.waiting.remove(dispatch)) {
				return false;
			}
			if (dispatch.async) {
				this.asyncWaiting--;
			}
			return true;
		}

	}

	/**
	 * One script call of dispatches.
	 */
	private static final class Call {

		private final List<Dispatch> dispatches;

		private final AtomicBoolean replied = new AtomicBoolean();

		private final boolean hasAsync;

		Call(List<Dispatch> dispatches) {
			this.dispatches = dispatches;
			this.hasAsync = dispatches.stream().anyMatch((dispatch) -> dispatch.async);
		}

		boolean hasAsync() {
			return this.hasAsync;
		}

	}

	/**
	 * One caller's job. The synchronous caller waits for {@link #reply}; the asynchronous
	 * one gets {@link #future}, completed once by the sending thread.
	 */
	private static final class Dispatch {

		private final PreparedJob job;

		private final boolean async;

		private final CompletableFuture<DispatchResult> reply = new CompletableFuture<>();

		private final CompletableFuture<DispatchResult> future = new CompletableFuture<>();

		private final AtomicBoolean done = new AtomicBoolean();

		/** The call that carries it, once sent; guarded by its lane. */
		private @Nullable Call call;

		Dispatch(PreparedJob job, boolean async) {
			this.job = job;
			this.async = async;
		}

		/** A call of this dispatch alone, when calls are not coalesced. */
		Call sentAlone() {
			this.call = new Call(List.of(this));
			return this.call;
		}

		Call call() {
			Assert.state(this.call != null, "Not sent");
			return this.call;
		}

	}

}
