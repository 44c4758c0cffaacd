package io.redq.queue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;

/**
 * Sends the enqueues of one queue that arrive while earlier ones are on their way to
 * Redis together, as one call of the enqueue script.
 *
 * <p>
 * Every dispatch waits until Redis has stored it, so each one costs a round trip and a
 * script call. Here at most {@value #MAX_IN_FLIGHT} calls per queue are on their way at
 * once; enqueues that arrive meanwhile wait in line, and the call that completes sends
 * them as one call from the connection's event loop, without another thread hand-off. A
 * lone enqueue goes out at once, so coalescing adds no latency. The script handles the
 * jobs of one call in order, as if each enqueue had its own call, and each caller gets
 * the results of its own jobs, or the error of the call they were in.
 *
 * @author Redq team
 * @since 0.1.0
 */
@SuppressWarnings("rawtypes")
final class EnqueueCoalescer {

	/**
	 * Calls of one queue on their way at once. With one, a call waits for the whole round
	 * trip of the one before it; with more, the calls grow smaller.
	 */
	static final int MAX_IN_FLIGHT = 2;

	/** The most jobs in one call, unless a single enqueue has more. */
	static final int MAX_JOBS = 1000;

	/**
	 * The most envelope characters in one call, unless a single enqueue has more: the
	 * jobs of one call travel in one request, and Redis limits the size of a request.
	 */
	static final long MAX_CHARS = 1024 * 1024;

	private final Function<List<String>, Mono<List>> script;

	private final Duration timeout;

	private final Queue<Enqueue> waiting = new ConcurrentLinkedQueue<>();

	private final Object takeLock = new Object();

	private final AtomicInteger inFlight = new AtomicInteger();

	/**
	 * Create an instance for one queue.
	 * @param script runs the enqueue script of the queue with the given {@code ARGV},
	 * emitting the list of job statuses
	 * @param timeout how long a caller waits for its jobs to be stored before it gives up
	 */
	EnqueueCoalescer(Function<List<String>, Mono<List>> script, Duration timeout) {
		this.script = script;
		this.timeout = timeout;
	}

	/**
	 * Enqueue jobs, together with those of concurrent callers, and wait until Redis has
	 * stored them.
	 * @param commands the jobs
	 * @return the script's status of each job, in order
	 */
	List<?> enqueue(List<EnqueueCommand> commands) {
		Enqueue enqueue = new Enqueue(commands);
		this.waiting.add(enqueue);
		sendWaiting();
		try {
			return enqueue.statuses.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause
					: new RedisSystemException("Enqueue failed: " + ex.getCause(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new QueryTimeoutException("Redis did not confirm the enqueue of " + commands.size()
					+ " job(s) within " + this.timeout + "; they may still be stored");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for Redis to store " + commands.size()
					+ " job(s); they may still be stored", ex);
		}
	}

	// Runs on a caller after it joined the line, and on the event loop after a call
	// completed. A caller checks for a free call after joining and a completed call
	// checks the line after freeing its place, so one of the two sends every waiting job.
	private void sendWaiting() {
		while (!this.waiting.isEmpty()) {
			int calls = this.inFlight.get();
			if (calls >= MAX_IN_FLIGHT) {
				return;
			}
			if (this.inFlight.compareAndSet(calls, calls + 1)) {
				List<Enqueue> batch = take();
				if (batch.isEmpty()) {
					this.inFlight.decrementAndGet();
				}
				else {
					send(batch);
				}
			}
		}
	}

	private List<Enqueue> take() {
		List<Enqueue> batch = new ArrayList<>();
		int jobs = 0;
		long chars = 0;
		synchronized (this.takeLock) {
			for (Enqueue next = this.waiting.peek(); next != null; next = this.waiting.peek()) {
				if (!batch.isEmpty() && (jobs + next.commands.size() > MAX_JOBS || chars + next.chars > MAX_CHARS)) {
					break;
				}
				batch.add(this.waiting.poll());
				jobs += next.commands.size();
				chars += next.chars;
			}
		}
		return batch;
	}

	private void send(List<Enqueue> batch) {
		List<EnqueueCommand> commands = new ArrayList<>();
		batch.forEach((enqueue) -> commands.addAll(enqueue.commands));
		try {
			this.script.apply(JobQueueOperations.enqueueArgs(commands))
				.subscribe((statuses) -> completed(batch, statuses, null), (ex) -> completed(batch, null, ex));
		}
		catch (RuntimeException ex) {
			completed(batch, null, ex);
		}
	}

	private void completed(List<Enqueue> batch, @Nullable List statuses, @Nullable Throwable failure) {
		this.inFlight.decrementAndGet();
		// the next call goes out before the callers wake up: they are not on its way
		sendWaiting();
		int from = 0;
		for (Enqueue enqueue : batch) {
			if (failure != null) {
				enqueue.statuses.completeExceptionally(failure);
			}
			else {
				int to = from + enqueue.commands.size();
				enqueue.statuses.complete(statuses.subList(from, to));
				from = to;
			}
		}
	}

	private static final class Enqueue {

		private final List<EnqueueCommand> commands;

		private final long chars;

		private final CompletableFuture<List<?>> statuses = new CompletableFuture<>();

		Enqueue(List<EnqueueCommand> commands) {
			this.commands = commands;
			this.chars = commands.stream().mapToLong((command) -> command.body().length()).sum();
		}

	}

}
