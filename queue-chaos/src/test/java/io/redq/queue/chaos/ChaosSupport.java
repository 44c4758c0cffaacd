package io.redq.queue.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every scenario needs: a Redis process, worker JVMs, a dispatcher in the test JVM,
 * the ledgers, and clean-up of every process even when the test fails.
 */
abstract class ChaosSupport {

	static final String LOOPBACK = "127.0.0.1";

	static final String QUEUE = ChaosTask.QUEUE;

	static final Duration LEASE = Duration.ofSeconds(1);

	/** The migrator runs at least once per poll timeout ({@code 1s} for the workers). */
	static final Duration MIGRATOR_PASS = Duration.ofSeconds(1);

	/** Read once: the jar they come from may be replaced by another build meanwhile. */
	static final QueueScripts SCRIPTS = QueueScripts.load();

	private static final Path REPORT = Path.of("target", "chaos-report.txt");

	Path directory;

	@Nullable RedisServer redis;

	final List<WorkerProcess> workers = new ArrayList<>();

	@Nullable LettuceConnectionFactory connectionFactory;

	@Nullable RedisJobQueueOperations operations;

	@Nullable RedisJobDispatcher dispatcher;

	private final List<ChaosProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> extraConnectionFactories = new ArrayList<>();

	/**
	 * The test's Lettuce client reconnects as the workers' does, whose reconnect delay
	 * Redq caps at one second: it finds Redis again soon after a long outage too.
	 */
	private final ClientResources clientResources = ClientResources.builder()
		.reconnectDelay(Delay.exponential(Duration.ZERO, Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
		.build();

	private String testName = "";

	@BeforeEach
	void createDirectory(TestInfo info) throws IOException {
		this.testName = getClass().getSimpleName() + "." + info.getTestMethod().orElseThrow().getName();
		this.directory = Files.createDirectories(
				Path.of("target", "chaos", this.testName + "-" + System.currentTimeMillis()).toAbsolutePath());
	}

	@AfterEach
	void stopEverything() {
		for (WorkerProcess worker : this.workers) {
			worker.close();
		}
		this.proxies.forEach(ChaosProxy::close);
		this.extraConnectionFactories.forEach(LettuceConnectionFactory::destroy);
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.redis != null) {
			this.redis.close();
		}
		this.clientResources.shutdown();
	}

	// -- processes

	/**
	 * Start a {@code redis-server} with its data and {@code redis.log} in the test's
	 * directory, stopped after the test.
	 */
	RedisServer startRedis(String... arguments) {
		this.redis = RedisServer.local().directory(this.directory).arguments(arguments).start();
		this.connectionFactory = connectionFactory(this.redis.port(), Duration.ofSeconds(5));
		this.operations = new RedisJobQueueOperations(this.connectionFactory, SCRIPTS,
				new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX));
		this.dispatcher = dispatcher(this.operations);
		return this.redis;
	}

	/** A proxy in front of the test's Redis, closed after the test. */
	ChaosProxy proxy() {
		ChaosProxy proxy = new ChaosProxy(this.redis.port());
		this.proxies.add(proxy);
		return proxy;
	}

	/** A second dispatcher of the test's, through another port (e.g. a proxy). */
	RedisJobDispatcher dispatcherVia(int port, Duration commandTimeout) {
		LettuceConnectionFactory factory = connectionFactory(port, commandTimeout);
		this.extraConnectionFactories.add(factory);
		return dispatcher(new RedisJobQueueOperations(factory, SCRIPTS,
				new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX)));
	}

	private LettuceConnectionFactory connectionFactory(int port, Duration commandTimeout) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(LOOPBACK, port);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder()
					.clientResources(this.clientResources)
					.commandTimeout(commandTimeout)
					.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static RedisJobDispatcher dispatcher(RedisJobQueueOperations operations) {
		JobDefinition definition = new JobDefinition(ChaosTask.JOB_NAME, QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT,
				ChaosTask.class);
		return new RedisJobDispatcher(operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return name.equals(definition.name()) ? definition : null;
			}

			@Override
			public Collection<JobDefinition> all() {
				return List.of(definition);
			}

		}, JsonMapper.shared());
	}

	/** Launch workers in parallel and wait until each consumes. */
	List<WorkerProcess> startWorkers(int count, String... arguments) {
		return startWorkersVia(this.redis.port(), count, arguments);
	}

	/** Launch workers that reach Redis through another port (e.g. a proxy). */
	List<WorkerProcess> startWorkersVia(int port, int count, String... arguments) {
		List<WorkerProcess> started = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			started.add(launchWorkerVia(port, arguments));
		}
		started.forEach(WorkerProcess::awaitReady);
		return started;
	}

	WorkerProcess launchWorker(String... arguments) {
		return launchWorkerVia(this.redis.port(), arguments);
	}

	WorkerProcess launchWorkerVia(int port, String... arguments) {
		WorkerProcess worker = WorkerProcess.launch("worker-" + this.workers.size(), this.directory, port,
				List.of(arguments));
		this.workers.add(worker);
		return worker;
	}

	// -- jobs

	List<String> dispatch(int count, ChaosTask task, int maxAttempts) {
		List<String> ids = new ArrayList<>();
		for (int from = 0; from < count; from += 1000) {
			List<JobRequest> requests = IntStream.range(from, Math.min(count, from + 1000))
				.mapToObj((i) -> JobRequest.of(ChaosTask.JOB_NAME, task).maxAttempts(maxAttempts).build())
				.toList();
			this.dispatcher.dispatchAll(requests).forEach((result) -> ids.add(result.id()));
		}
		return ids;
	}

	QueueStats stats() {
		return this.operations.stats(QUEUE);
	}

	/** Every ledger entry of every worker this test started, dead or alive. */
	List<LedgerEntry> entries() {
		List<LedgerEntry> entries = new ArrayList<>();
		this.workers.forEach((worker) -> entries.addAll(worker.ledger()));
		return entries;
	}

	List<LedgerEntry> entries(Predicate<LedgerEntry> filter) {
		return entries().stream().filter(filter).toList();
	}

	/**
	 * The jobs a worker started at or before a time: those in flight when a fault hit it.
	 */
	Set<String> startedBy(Collection<WorkerProcess> victims, long atOrBefore) {
		Set<Long> pids = new LinkedHashSet<>();
		victims.forEach((victim) -> pids.add(victim.pid()));
		Set<String> ids = new LinkedHashSet<>();
		for (LedgerEntry entry : entries()) {
			if (entry.is("START") && pids.contains(entry.pid()) && entry.time() <= atOrBefore) {
				ids.add(entry.id());
			}
		}
		return ids;
	}

	/** Stale tokens refused by Redis, as the workers logged them. */
	long refusals(WorkerProcess worker) {
		return worker.countLog("Late acknowledgement of job") + worker.countLog("lost its lease")
				+ worker.countLog("refused: its lease was lost");
	}

	/** Wait until nothing is ready, delayed or reserved. */
	void awaitDrained(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		QueueStats stats = stats();
		while (stats.ready() + stats.delayed() + stats.reserved() > 0) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Queue not drained within " + timeout + ": " + stats + "\n"
						+ this.workers.stream().map((w) -> w + ":\n" + w.logTail()).toList());
			}
			sleep(100);
			stats = stats();
		}
	}

	/** Wait until some worker's ledger has at least {@code count} entries matching. */
	void awaitEntries(Predicate<LedgerEntry> filter, int count, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (entries(filter).size() < count) {
			assertThat(System.nanoTime()).as("waiting for %d ledger entries", count).isLessThan(deadline);
			sleep(20);
		}
	}

	Invariants.Outcome checkInvariants(Collection<String> acknowledged, Set<String> inFlightAtFault) {
		return new Invariants(this).check(acknowledged, inFlightAtFault);
	}

	/** Print a measurement and append it to {@code target/chaos-report.txt}. */
	void report(String text) {
		String line = this.testName + ": " + text;
		System.out.println("[chaos] " + line);
		try {
			Files.writeString(REPORT, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static long millisSince(long nanoTime) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
