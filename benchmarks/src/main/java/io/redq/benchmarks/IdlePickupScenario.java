package io.redq.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.benchmarks.RedisMonitor.Line;
import io.redq.benchmarks.ReplyTimes.Reply;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code idle-pickup}: one job at a time into an idle queue, {@code --gap} apart; the
 * time from just before {@code dispatch} to the start of the handler, measured with
 * {@link System#nanoTime()} in this JVM, and split per pickup into its steps (unless
 * {@code --split=false}) on the wall clock that Redis's {@code MONITOR} stamps commands
 * with:
 * <ol>
 * <li>{@code toEventLoop}: until Lettuce's event loop wrote the dispatch's script call
 * ({@link ReplyTimes});
 * <li>{@code toScript}: until Redis started it ({@link RedisMonitor});
 * <li>{@code toReservation}: until Redis started the reservation that waited behind the
 * idle container's {@code BZPOPMIN} (the dispatch's script runs meanwhile);
 * <li>{@code toReply}: until the event loop had read the reservation's reply (the
 * reservation runs meanwhile);
 * <li>{@code toHandler}: until the handler started (the event loop hands the reply to the
 * fetcher, the fetcher the job to a worker).
 * </ol>
 * Beside them, {@code dispatchReply} is the time from the start of the dispatch's script
 * in Redis to the event loop reading its reply, and two references measured after the
 * pickups with the same gap: a thread woken by another ({@code handOffIdle}, and a second
 * hand-off right after it, {@code handOffNext}), and a {@code PING} on a socket of its
 * own ({@code pingIdle}, {@code pingNext}).
 *
 * @author Redq team
 * @since 0.1.0
 */
class IdlePickupScenario implements Scenario {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** How long to wait for a {@code MONITOR} line of a pickup whose handler started. */
	private static final int MONITOR_WAIT_MILLIS = 1000;

	private static final List<String> SEGMENTS = List.of("ToEventLoop", "ToScript", "ToReservation", "ToReply",
			"ToHandler");

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(1000);
		Duration gap = harness.options().duration("gap", Duration.ofMillis(10));
		boolean split = harness.options().split();
		List<Class<?>> sources = split ? List.of(NoopJobs.class, ReplyTimes.Installed.class) : List.of(NoopJobs.class);
		try (ConfigurableApplicationContext context = harness.start(sources)) {
			harness.describe(context, result);
			harness.warmUp(result, () -> pickUp(context, Math.min(jobs, 100), gap, null));
			result.put("jobs", jobs);
			result.put("gapMs", gap.toMillis());
			Split splits = split ? new Split(context, monitor(harness), jobs) : null;
			Phase phase = Phase.start(harness, result, jobs + " pickups");
			StallMeter stalls = StallMeter.start();
			long[] micros;
			try {
				micros = pickUp(context, jobs, gap, splits);
			}
			finally {
				if (splits != null) {
					splits.monitor.close();
				}
			}
			stalls.end(result);
			result.putLatencies("pickup", micros);
			phase.end(result, "", jobs);
			// the throughput of this scenario is the gap: not a figure to compare
			result.values().remove("jobsPerSecond");
			if (splits != null) {
				splits.put(result);
			}
			int rounds = Math.min(jobs, 300);
			handOffs(result, rounds, gap);
			pings(result, harness, rounds, gap);
		}
	}

	private long[] pickUp(ConfigurableApplicationContext context, int jobs, Duration gap, @Nullable Split split)
			throws Exception {
		Recorder recorder = context.getBean(Recorder.class);
		JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
		recorder.reset(jobs, false);
		long[] micros = new long[jobs];
		for (int i = 0; i < jobs; i++) {
			Thread.sleep(gap.toMillis());
			long startMicros = RedisMonitor.now();
			long start = System.nanoTime();
			DispatchResult dispatched = dispatcher.dispatch(Harness.noop(i));
			micros[i] = (recorder.awaitNext(TIMEOUT) - start) / 1000;
			// read after the handler started, so that no reading competes with the pickup
			if (split != null) {
				split.add(dispatched.id(), startMicros, recorder.lastStartMicros());
			}
		}
		return micros;
	}

	/**
	 * Open {@code MONITOR} on the server that holds the queue.
	 */
	private static RedisMonitor monitor(Harness harness) {
		RedisCluster cluster = harness.redis().cluster();
		if (cluster != null) {
			RedisServer master = cluster.masterOf(Harness.queueKeys().wake());
			return RedisMonitor.open(master.host(), master.port());
		}
		return RedisMonitor.open(harness.redis().host(), harness.redis().port());
	}

	/**
	 * A thread parked for the gap and woken by another ({@code handOffIdle}), which wakes
	 * a third at once ({@code handOffNext}): a hand-off between threads alone.
	 */
	private static void handOffs(Result result, int rounds, Duration gap) throws InterruptedException {
		long[] idle = new long[rounds];
		long[] next = new long[rounds];
		Relay second = new Relay(null);
		Relay first = new Relay(second);
		first.start();
		second.start();
		for (int i = 0; i < rounds; i++) {
			Thread.sleep(gap.toMillis());
			long start = System.nanoTime();
			first.wake(i + 1);
			second.await(i + 1);
			idle[i] = (first.wokeNanos - start) / 1000;
			next[i] = (second.wokeNanos - first.wokeNanos) / 1000;
		}
		first.thread.interrupt();
		second.thread.interrupt();
		result.putPercentiles("handOffIdle", idle);
		result.putPercentiles("handOffNext", next);
	}

	/**
	 * A {@code PING} after the gap on a socket of its own, read on this thread
	 * ({@code pingIdle}), and another right after it ({@code pingNext}).
	 */
	private static void pings(Result result, Harness harness, int rounds, Duration gap) throws InterruptedException {
		long[] idle = new long[rounds];
		long[] next = new long[rounds];
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(harness.redis().host(), harness.redis().port()), 2000);
			socket.setTcpNoDelay(true);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			for (int i = 0; i < rounds; i++) {
				Thread.sleep(gap.toMillis());
				idle[i] = ping(out, in);
				next[i] = ping(out, in);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		result.putPercentiles("pingIdle", idle);
		result.putPercentiles("pingNext", next);
	}

	private static long ping(OutputStream out, InputStream in) throws IOException {
		byte[] pong = new byte[7];
		long start = System.nanoTime();
		out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
		for (int read = 0; read < pong.length;) {
			int n = in.read(pong, read, pong.length - read);
			if (n < 0) {
				throw new IOException("Redis closed the connection");
			}
			read += n;
		}
		return (System.nanoTime() - start) / 1000;
	}

	/**
	 * A thread that parks until woken with the next round, notes when it woke, and wakes
	 * the next relay, or the thread that made the last one.
	 */
	private static final class Relay {

		private final Thread thread;

		private final Thread caller = Thread.currentThread();

		private final @Nullable Relay next;

		private volatile int round;

		private volatile int done;

		private volatile long wokeNanos;

		Relay(@Nullable Relay next) {
			this.next = next;
			this.thread = new Thread(this::relay, "bench-relay");
			this.thread.setDaemon(true);
		}

		void start() {
			this.thread.start();
		}

		void wake(int round) {
			this.round = round;
			LockSupport.unpark(this.thread);
		}

		void await(int round) {
			while (this.done != round) {
				LockSupport.park(this);
			}
		}

		private void relay() {
			int seen = 0;
			while (!Thread.currentThread().isInterrupted()) {
				int round = this.round;
				if (round == seen) {
					LockSupport.park(this);
					continue;
				}
				this.wokeNanos = System.nanoTime();
				seen = round;
				this.done = round;
				if (this.next != null) {
					this.next.wake(round);
				}
				else {
					LockSupport.unpark(this.caller);
				}
			}
		}

	}

	/**
	 * Each pickup's steps: the {@code MONITOR} lines of the dispatch's script call and of
	 * the reservation after it, and the replies Lettuce read.
	 */
	private static final class Split {

		private final RedisMonitor monitor;

		private final ReplyTimes replies;

		private final String reserveSha;

		private final long[][] segments;

		private final long[] dispatchReply;

		private int samples;

		private int missed;

		Split(ConfigurableApplicationContext context, RedisMonitor monitor, int jobs) {
			this.monitor = monitor;
			this.replies = context.getBean(ReplyTimes.class);
			this.reserveSha = context.getBean(RedisJobQueueOperations.class)
				.getStore()
				.getScripts()
				.reserve()
				.getSha1();
			this.segments = new long[SEGMENTS.size()][jobs];
			this.dispatchReply = new long[jobs];
			this.replies.drain();
		}

		void add(String id, long startMicros, long handlerMicros) {
			Line script = this.monitor.next((line) -> line.isScriptCall() && line.text().contains(id),
					MONITOR_WAIT_MILLIS);
			Line reservation = (script != null) ? this.monitor.next(
					(line) -> line.isScriptCall() && line.text().contains(this.reserveSha), MONITOR_WAIT_MILLIS) : null;
			List<Reply> read = this.replies.drain();
			Reply scriptReply = (script != null) ? replyTo(read, script, null) : null;
			Reply reservationReply = (reservation != null) ? replyTo(read, reservation, scriptReply) : null;
			if (scriptReply == null || reservationReply == null) {
				this.missed++;
				return;
			}
			long[] at = { startMicros, scriptReply.sentMicros(), script.micros(), reservation.micros(),
					reservationReply.readMicros(), handlerMicros };
			for (int i = 0; i < SEGMENTS.size(); i++) {
				this.segments[i][this.samples] = at[i + 1] - at[i];
			}
			this.dispatchReply[this.samples] = scriptReply.readMicros() - script.micros();
			this.samples++;
		}

		/**
		 * Return the first script call's reply read on the line's connection after Redis
		 * ran it.
		 */
		private static @Nullable Reply replyTo(List<Reply> read, Line line, @Nullable Reply other) {
			for (Reply reply : read) {
				if (reply != other && reply.port() == line.port() && reply.command().startsWith("EVAL")
						&& reply.readMicros() >= line.micros()) {
					return reply;
				}
			}
			return null;
		}

		void put(Result result) {
			result.put("splitSamples", this.samples);
			result.put("splitMissed", this.missed);
			for (int i = 0; i < SEGMENTS.size(); i++) {
				result.putPercentiles("split" + SEGMENTS.get(i), Arrays.copyOf(this.segments[i], this.samples));
			}
			result.putPercentiles("splitDispatchReply", Arrays.copyOf(this.dispatchReply, this.samples));
		}

	}

}
