package io.redq.benchmarks;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

import io.redq.queue.autoconfigure.JobQueueProperties;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisCluster;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What scenarios share: the options, the harness's Redis connection, the application
 * context, and dispatching from several threads.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class Harness {

	/** How long a measured phase may take before the run fails. */
	static final Duration TIMEOUT = Duration.ofMinutes(5);

	/** The most warm-up rounds a scenario runs. */
	static final int MAX_WARMUP_ROUNDS = 10;

	/** The share of a warm-up round's wall time below which the JIT counts as settled. */
	static final double JIT_QUIET_SHARE = 0.05;

	private final Options options;

	private final RedisAdmin redis;

	private final PrintStream out;

	private @Nullable ConfigurableApplicationContext context;

	Harness(Options options, RedisAdmin redis, PrintStream out) {
		this.options = options;
		this.redis = redis;
		this.out = out;
	}

	Options options() {
		return this.options;
	}

	RedisAdmin redis() {
		return this.redis;
	}

	void log(String message) {
		this.out.println(message);
	}

	/**
	 * Start the application against the benchmark's Redis.
	 * @param jobs {@link BenchmarkConfiguration.NoopJobs} or
	 * {@link BenchmarkConfiguration.IdleJobs}
	 * @param properties properties of the scenario, in {@code name=value} form; arguments
	 * of the command line take precedence
	 * @return the running context
	 */
	ConfigurableApplicationContext start(Class<?> jobs, String... properties) {
		return start(List.of(jobs), properties);
	}

	/**
	 * Start the application against the benchmark's Redis.
	 * @param sources {@link BenchmarkConfiguration.NoopJobs} or
	 * {@link BenchmarkConfiguration.IdleJobs}, and what else the scenario needs
	 * @param properties properties of the scenario, in {@code name=value} form; arguments
	 * of the command line take precedence
	 * @return the running context
	 */
	ConfigurableApplicationContext start(List<Class<?>> sources, String... properties) {
		RedisCluster cluster = this.redis.cluster();
		List<String> all = new ArrayList<>((cluster != null) ? List.of(cluster.springProperties()) : List
			.of("spring.data.redis.host=" + this.redis.host(), "spring.data.redis.port=" + this.redis.port()));
		all.addAll(List.of("redq.key-prefix=" + Benchmarks.KEY_PREFIX, "spring.main.banner-mode=off",
				"spring.main.log-startup-info=false", "logging.level.root=warn",
				// the workers ran on virtual threads (Java 21+) in every measurement so
				// far
				"spring.threads.virtual.enabled=true"));
		all.addAll(List.of(properties));
		this.context = new SpringApplicationBuilder(BenchmarkConfiguration.class).sources(sources.toArray(Class[]::new))
			.properties(all.toArray(String[]::new))
			.run(this.options.springArgs());
		return this.context;
	}

	/**
	 * Start the application with the no-op jobs and the listener containers stopped: the
	 * scenario measures without them, or starts them itself.
	 * @return the running context
	 */
	ConfigurableApplicationContext startWithoutListeners() {
		return start(BenchmarkConfiguration.NoopJobs.class, "redq.listener.auto-startup=false");
	}

	/**
	 * Run warm-up rounds until the JIT compiler has settled: a round ends the warm-up
	 * once compiling took less than {@link #JIT_QUIET_SHARE} of its wall time, and after
	 * {@link #MAX_WARMUP_ROUNDS} rounds at the latest. On two cores the compiler threads
	 * otherwise take CPU from Redis and the workers for the first 10 to 20 seconds of a
	 * run, and a measurement taken then reports compile time.
	 * @param result where the number of rounds goes
	 * @param round one warm-up round
	 * @throws Exception when a round fails
	 */
	void warmUp(Result result, WarmupRound round) throws Exception {
		int rounds = 0;
		boolean quiet = false;
		while (!quiet && rounds < MAX_WARMUP_ROUNDS) {
			long compiling = jitMillis();
			long start = System.nanoTime();
			round.run();
			rounds++;
			double millis = (System.nanoTime() - start) / 1e6;
			quiet = jitMillis() - compiling < JIT_QUIET_SHARE * millis;
		}
		result.put("warmupRounds", rounds);
	}

	/**
	 * The JIT compiler's accumulated compile time, summed over its threads.
	 * @return the milliseconds, or 0 when the JVM does not report it
	 */
	static long jitMillis() {
		CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
		return (compiler != null && compiler.isCompilationTimeMonitoringSupported())
				? compiler.getTotalCompilationTime() : 0;
	}

	/**
	 * One warm-up round.
	 */
	@FunctionalInterface
	interface WarmupRound {

		void run() throws Exception;

	}

	/**
	 * Describe the listener settings of a context in the result.
	 * @param context the context
	 * @param result the result
	 */
	void describe(ConfigurableApplicationContext context, Result result) {
		JobQueueProperties.Listener listener = context.getBean(JobQueueProperties.class).getListener();
		result.put("concurrency", listener.getConcurrency());
		result.put("batchSize", listener.getBatchSize());
		result.put("prefetch", listener.getPrefetch());
		result.put("virtualThreads",
				context.getBean(JobListenerContainerFactory.class).getContainerProperties().isVirtualThreads());
	}

	/**
	 * Delete every key of the benchmark queue.
	 */
	void clearQueue() {
		this.redis.delete(queueKeys().all());
	}

	static QueueKeys queueKeys() {
		return Benchmarks.KEYSPACE.queue(BenchmarkConfiguration.QUEUE);
	}

	static JobRequest noop(int i) {
		return JobRequest.of(BenchmarkConfiguration.JOB, Integer.toString(i)).build();
	}

	/**
	 * Dispatch jobs with {@code dispatchAll} in batches of 1,000, from
	 * {@code --producers} threads; the earliest batches go first.
	 * @param dispatcher the dispatcher
	 * @param jobs how many jobs
	 * @param request the request for the i-th job
	 * @throws Exception when a dispatch fails
	 */
	void dispatchBatches(JobDispatcher dispatcher, int jobs, IntFunction<JobRequest> request) throws Exception {
		dispatchBatches(dispatcher, jobs, 0, request);
	}

	/**
	 * Dispatch jobs with {@code dispatchAll} in batches of 1,000, from
	 * {@code --producers} threads; the earliest batches go first.
	 * @param dispatcher the dispatcher
	 * @param jobs how many jobs
	 * @param rate the most jobs per second, or 0 for as fast as possible
	 * @param request the request for the i-th job
	 * @throws Exception when a dispatch fails
	 */
	void dispatchBatches(JobDispatcher dispatcher, int jobs, int rate, IntFunction<JobRequest> request)
			throws Exception {
		int batches = (jobs + 999) / 1000;
		int producers = this.options.producers();
		long start = System.nanoTime();
		parallel(producers, (producer) -> {
			for (int batch = producer; batch < batches; batch += producers) {
				if (rate > 0) {
					pace(start + (long) (batch * 1000 * 1e9 / rate));
				}
				List<JobRequest> requests = new ArrayList<>(1000);
				for (int i = batch * 1000; i < Math.min(jobs, (batch + 1) * 1000); i++) {
					requests.add(request.apply(i));
				}
				dispatcher.dispatchAll(requests);
			}
		});
	}

	/**
	 * Dispatch jobs one {@code dispatch} call each, from {@code --threads} threads.
	 * @param dispatcher the dispatcher
	 * @param jobs how many jobs
	 * @throws Exception when a dispatch fails
	 */
	void dispatchSingles(JobDispatcher dispatcher, int jobs) throws Exception {
		int threads = this.options.threads();
		parallel(threads, (thread) -> {
			for (int i = thread; i < jobs; i += threads) {
				dispatcher.dispatch(BenchmarkConfiguration.JOB, Integer.toString(i));
			}
		});
	}

	/**
	 * Dispatch jobs one {@code dispatchAsync} call each, from {@code --threads} threads,
	 * and wait until every job is in Redis.
	 * @param dispatcher the dispatcher
	 * @param jobs how many jobs
	 * @throws Exception when a dispatch fails
	 */
	void dispatchSinglesAsync(JobDispatcher dispatcher, int jobs) throws Exception {
		int threads = this.options.threads();
		parallel(threads, (thread) -> {
			List<CompletableFuture<DispatchResult>> futures = new ArrayList<>(jobs / threads + 1);
			for (int i = thread; i < jobs; i += threads) {
				futures.add(dispatcher.dispatchAsync(BenchmarkConfiguration.JOB, Integer.toString(i)));
			}
			CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
		});
	}

	/**
	 * Wait until {@code jobs} handlers have started and every job of the queue has been
	 * acknowledged (its data is gone from Redis).
	 * @param recorder the recorder
	 * @param jobs how many jobs
	 * @return when the last acknowledgement was seen ({@link System#nanoTime()})
	 * @throws InterruptedException when interrupted
	 */
	long awaitCompleted(Recorder recorder, int jobs) throws InterruptedException {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (recorder.started() < jobs) {
			checkDeadline(deadline, recorder.started() + " of " + jobs + " jobs started");
			Thread.sleep(1);
		}
		for (String data : jobKeys()) {
			while (this.redis.hlen(data) > 0) {
				checkDeadline(deadline, "jobs not acknowledged");
				Thread.sleep(1);
			}
		}
		return System.nanoTime();
	}

	/**
	 * Return the key of the jobs' data in each shard of the benchmark queue, as the
	 * application started last places them.
	 */
	private List<String> jobKeys() {
		if (this.context == null || !this.context.isActive()) {
			return List.of(queueKeys().jobs());
		}
		QueueStore store = this.context.getBean(RedisJobQueueOperations.class).getStore();
		return new QueueReader(store).shards(BenchmarkConfiguration.QUEUE)
			.stream()
			.map((shard) -> store.keys(shard).jobs())
			.toList();
	}

	static void startContainers(ConfigurableApplicationContext context) {
		context.getBean(JobListenerRegistry.class).getListenerContainers().forEach((container) -> container.start());
	}

	static void stopContainers(ConfigurableApplicationContext context) {
		context.getBean(JobListenerRegistry.class).getListenerContainers().forEach((container) -> container.stop());
	}

	static void parallel(int threads, IntConsumer task) throws Exception {
		AtomicInteger count = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(threads,
				(runnable) -> new Thread(runnable, "bench-caller-" + count.incrementAndGet()));
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				int thread = i;
				futures.add(executor.submit(() -> {
					try {
						task.accept(thread);
					}
					finally {
						ThreadCpu.ending();
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static void pace(long startNanos) {
		long wait = startNanos - System.nanoTime();
		if (wait > 0) {
			try {
				Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

	private static void checkDeadline(long deadline, String progress) {
		if (System.nanoTime() - deadline > 0) {
			throw new IllegalStateException("Timed out after " + TIMEOUT + ": " + progress);
		}
	}

}
