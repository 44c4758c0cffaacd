package io.redq.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.inspect.SearchResult;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code search}: what the dashboard's searches and reads cost on a big queue: N ready
 * jobs (default N = 1,000,000, ids {@code job-<i>}) and N/100 dead ones (at most 10,000),
 * then each kind of search or read, {@code --rounds} times (default 5), a quarter of a
 * second apart so that no search meets the instance's read budget of another. Reports the
 * longest time of each kind (client side, whole call), the {@code HSCAN} calls of one
 * search, Redis's own 99.9th percentile of {@code HSCAN} ({@code INFO latencystats}) and
 * the longest a {@code PING} sent every millisecond on a connection of its own waited for
 * its answer meanwhile ({@code pingMaxMs}): how long Redis stopped answering others,
 * beside the machine's stalls. No listener runs.
 *
 * @author Redq team
 * @since 0.1.0
 */
class SearchScenario implements Scenario {

	private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(1_000_000);
		int dead = Math.min(10_000, Math.max(1, jobs / 100));
		int rounds = harness.options().intValue("rounds", 5);
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			JobQueueInspector inspector = context.getBean(JobQueueInspector.class);
			harness.clearQueue();
			kill(context.getBean(RedisJobQueueOperations.class), dispatcher, dead);
			harness.dispatchBatches(dispatcher, jobs,
					(i) -> JobRequest.of(BenchmarkConfiguration.JOB, Integer.toString(i)).id("job-" + i).build());
			result.put("jobs", jobs);
			result.put("deadJobs", dead);
			Map<String, Supplier<?>> reads = reads(inspector, jobs);
			harness.warmUp(result, () -> reads.values().forEach((read) -> {
				read.get();
				LockSupport.parkNanos(PAUSE_NANOS);
			}));
			// the machine's own noise first: PINGs while nothing else runs
			Ping idle = Ping.start(harness);
			LockSupport.parkNanos(IDLE_NANOS);
			result.put("redisLongestCommandIdleMs", idle.longestCommandMillis());
			result.put("pingIdleMaxMs", idle.end() / 1e3);
			long hscans = hscanCalls(harness);
			Ping ping = Ping.start(harness);
			StallMeter stalls = StallMeter.start();
			Map<String, Long> maxMicros = new LinkedHashMap<>();
			for (int round = 0; round < rounds; round++) {
				for (Map.Entry<String, Supplier<?>> read : reads.entrySet()) {
					long start = System.nanoTime();
					Object answer = read.getValue().get();
					maxMicros.merge(read.getKey(), (System.nanoTime() - start) / 1000, Math::max);
					if (answer instanceof SearchResult found) {
						result.put(read.getKey() + "Found", found.jobs().size());
						result.put(read.getKey() + "Complete", found.complete());
					}
					LockSupport.parkNanos(PAUSE_NANOS);
				}
			}
			stalls.end(result);
			result.put("redisLongestCommandMs", ping.longestCommandMillis());
			result.put("redisSlowestCommands", ping.slowestCommands());
			result.put("pingMaxMs", ping.end() / 1e3);
			maxMicros.forEach((name, micros) -> result.put(name + "MaxMs", micros / 1e3));
			// the four searches read the hashes with HSCAN; the dead filter and the pages
			// do not
			result.put("hscanCallsPerSearch", (double) (hscanCalls(harness) - hscans) / (rounds * 4));
			String hscan = harness.redis().info("latencystats").get("latency_percentiles_usec_hscan");
			if (hscan != null) {
				result.put("hscanLatencyUsec", hscan);
			}
			harness.clearQueue();
		}
	}

	/**
	 * The reads measured, by name: searches by an id that no job has, by a part of ids
	 * that 11 jobs have, by a job name no job has, and by an error no job has; a filter
	 * of the dead jobs that matches none; the first page of ready jobs and the list of
	 * queues.
	 */
	private static Map<String, Supplier<?>> reads(JobQueueInspector inspector, int jobs) {
		Map<String, Supplier<?>> reads = new LinkedHashMap<>();
		reads.put("searchIdMissing", () -> inspector.read(() -> inspector.search(SearchBy.ID, "no-such-job", 20)));
		String part = "job-" + Math.max(1, jobs / 10 - 1);
		reads.put("searchIdPart", () -> inspector.read(() -> inspector.search(SearchBy.ID, part, 20)));
		reads.put("searchJob", () -> inspector.read(() -> inspector.search(SearchBy.JOB, "no-such-job", 20)));
		reads.put("searchError", () -> inspector.read(() -> inspector.search(SearchBy.ERROR, "NoSuchError", 20)));
		reads.put("deadFilter",
				() -> inspector.read(() -> inspector.deadJobs(BenchmarkConfiguration.QUEUE, null, "NoSuchError", 100)));
		reads.put("readyPage",
				() -> inspector.read(() -> inspector.jobs(BenchmarkConfiguration.QUEUE, JobStatus.State.READY, 0, 20)));
		reads.put("queueList", () -> inspector.read(inspector::queues));
		return reads;
	}

	/**
	 * Make dead jobs: dispatch them with one attempt, reserve them and fail them.
	 */
	private static void kill(RedisJobQueueOperations operations, JobDispatcher dispatcher, int dead) {
		List<JobRequest> requests = new ArrayList<>(dead);
		for (int i = 0; i < dead; i++) {
			requests.add(JobRequest.of(BenchmarkConfiguration.JOB, "x").id("dead-" + i).maxAttempts(1).build());
		}
		for (int from = 0; from < dead; from += 1000) {
			dispatcher.dispatchAll(requests.subList(from, Math.min(dead, from + 1000)));
		}
		ListenerOperations listener = operations.getListenerOperations();
		int killed = 0;
		while (killed < dead) {
			List<ReservedJob> batch = listener.reserve(BenchmarkConfiguration.QUEUE, 1000, Duration.ofMinutes(5))
				.jobs();
			for (ReservedJob job : batch) {
				listener.getLeaseOperations()
					.fail(BenchmarkConfiguration.QUEUE, job.lease(), "java.io.IOException: disk full", null);
			}
			killed += batch.size();
		}
	}

	private static long hscanCalls(Harness harness) {
		String stats = harness.redis().info("commandstats").get("cmdstat_hscan");
		if (stats == null) {
			return 0;
		}
		for (String field : stats.split(",")) {
			if (field.startsWith("calls=")) {
				return Long.parseLong(field.substring(6));
			}
		}
		return 0;
	}

	/**
	 * A {@code PING} every millisecond on a connection of its own, timed: the longest
	 * wait is the longest Redis stopped answering (or the machine stalled).
	 */
	private static final class Ping {

		// not among Lettuce's command types
		private static final ProtocolKeyword LATENCY = new ProtocolKeyword() {

			@Override
			public byte[] getBytes() {
				return "LATENCY".getBytes(StandardCharsets.US_ASCII);
			}

			@Override
			public String toString() {
				return "LATENCY";
			}

		};

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> connection;

		private final Thread thread;

		private volatile boolean stopped;

		// written by the thread, read after it ended
		private long maxMicros;

		private Ping(Harness harness) {
			this.client = RedisClient.create(RedisURI.create(harness.redis().host(), harness.redis().port()));
			this.connection = this.client.connect();
			this.thread = new Thread(this::ping, "ping");
			this.thread.setDaemon(true);
		}

		// Redis's latency monitor records every command of 1 ms or more from now on, and
		// its slow log those of 5 ms or more
		static Ping start(Harness harness) {
			Ping ping = new Ping(harness);
			ping.connection.sync().configSet("latency-monitor-threshold", "1");
			ping.connection.sync().configSet("slowlog-log-slower-than", "5000");
			ping.connection.sync().slowlogReset();
			ping.connection.sync()
				.dispatch(LATENCY, new IntegerOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("RESET"));
			ping.thread.start();
			return ping;
		}

		private void ping() {
			while (!this.stopped) {
				long start = System.nanoTime();
				this.connection.sync().ping();
				this.maxMicros = Math.max(this.maxMicros, (System.nanoTime() - start) / 1000);
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
			}
		}

		/**
		 * Return the longest command Redis ran since {@code LATENCY RESET}, from its
		 * latency monitor: {@code LATENCY LATEST} lists per event its latest and its
		 * longest time in milliseconds, for those over the monitor's threshold.
		 */
		long longestCommandMillis() {
			List<Object> events = this.connection.sync()
				.dispatch(LATENCY, new ArrayOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("LATEST"));
			long longest = 0;
			for (Object event : events) {
				List<?> fields = (List<?>) event;
				if (String.valueOf(fields.get(0)).endsWith("command")) {
					longest = Math.max(longest, ((Number) fields.get(3)).longValue());
				}
			}
			return longest;
		}

		/**
		 * Return the 5 slowest commands of the slow log, slowest first, each as its name
		 * (or the script's SHA-1 start) and its time in milliseconds.
		 */
		List<String> slowestCommands() {
			List<String> slowest = new ArrayList<>();
			List<Object> entries = new ArrayList<>(this.connection.sync().slowlogGet(128));
			entries.sort(Comparator.comparingLong((entry) -> -((Number) ((List<?>) entry).get(2)).longValue()));
			for (Object entry : entries.subList(0, Math.min(5, entries.size()))) {
				List<?> fields = (List<?>) entry;
				List<?> command = (List<?>) fields.get(3);
				String name = String.valueOf(command.get(0));
				if (name.equalsIgnoreCase("evalsha") && command.size() > 1) {
					name += " " + String.valueOf(command.get(1)).substring(0, 8);
				}
				slowest.add(name + " " + ((Number) fields.get(2)).longValue() / 1000.0 + " ms");
			}
			return slowest;
		}

		long end() throws InterruptedException {
			this.stopped = true;
			this.thread.join();
			this.connection.sync().configSet("latency-monitor-threshold", "0");
			this.connection.sync().configSet("slowlog-log-slower-than", "10000");
			this.connection.close();
			this.client.shutdown();
			return this.maxMicros;
		}

	}

}
