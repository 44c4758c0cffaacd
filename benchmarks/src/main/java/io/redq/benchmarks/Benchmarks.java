package io.redq.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.redq.benchmarks.EndToEndScenario.Dispatch;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;

/**
 * Runs one benchmark scenario against a Redis and prints one {@code RESULT {...}} line of
 * JSON plus a short table.
 *
 * <pre class="code">
 * java -jar benchmarks/target/benchmarks.jar --scenario=e2e [--redis=redis://127.0.0.1:6379] [--jobs=200000]
 * </pre>
 *
 * <p>
 * Without {@code --redis}, a {@code redis-server} is started on a free loopback port and
 * stopped at the end (or {@code REDQ_TEST_REDIS_URL} is used); with {@code --cluster=N},
 * a cluster of N masters, each master's figures reported too. Other {@code --name=value}
 * arguments, such as {@code --redq.listener.concurrency=16}, go to the Spring
 * application.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class Benchmarks {

	/**
	 * The key prefix of the benchmark's queues; their keys are deleted before each run.
	 */
	static final String KEY_PREFIX = "redq-bench";

	/** The keys under {@link #KEY_PREFIX}. */
	static final Keyspace KEYSPACE = new Keyspace(KEY_PREFIX);

	static final Map<String, Scenario> SCENARIOS = new TreeMap<>(
			Map.ofEntries(Map.entry("enqueue", new EnqueueScenario()), Map.entry("drain", new DrainScenario()),
					Map.entry("e2e", new EndToEndScenario(Dispatch.BATCHES)),
					Map.entry("e2e-single", new EndToEndScenario(Dispatch.SINGLES)),
					Map.entry("e2e-async", new EndToEndScenario(Dispatch.ASYNC)),
					Map.entry("idle-pickup", new IdlePickupScenario()), Map.entry("timers", new TimersScenario()),
					Map.entry("memory", new MemoryScenario()), Map.entry("idle-cost", new IdleCostScenario()),
					Map.entry("soak", new SoakScenario()), Map.entry("removal", new RemovalScenario()),
					Map.entry("resend-memory", new ResendMemoryScenario()),
					Map.entry("lone-dispatch", new LoneDispatchScenario())));

	static {
		SCENARIOS.put("transactions", new TransactionScenario());
		SCENARIOS.put("search", new SearchScenario());
		SCENARIOS.put("waiting", new WaitingScenario());
		SCENARIOS.put("batch", new BatchScenario());
		SCENARIOS.put("chain", new ChainScenario());
		SCENARIOS.put("results", new ResultsScenario());
	}

	private Benchmarks() {
	}

	public static void main(String[] args) {
		int status = 0;
		try {
			run(System.out, args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			status = 2;
		}
		catch (Exception ex) {
			ex.printStackTrace();
			status = 1;
		}
		// Lettuce and Redq threads must not keep the JVM alive
		System.exit(status);
	}

	/**
	 * Run the scenario that the arguments name.
	 * @param out where the table and the result line go
	 * @param args the command line
	 * @return the result
	 * @throws Exception when the scenario fails
	 */
	public static Result run(PrintStream out, String... args) throws Exception {
		Options options = Options.parse(args);
		Scenario scenario = SCENARIOS.get(options.scenario());
		if (scenario == null) {
			throw new IllegalArgumentException(
					"Unknown or missing --scenario; choose one of " + SCENARIOS.keySet() + "\n" + Options.USAGE);
		}
		int masters = options.intValue("cluster", 0);
		if (masters > 0 && options.redisUrl() != null) {
			throw new IllegalArgumentException("--cluster starts a cluster of its own: leave out --redis");
		}
		if (masters > 0) {
			try (RedisCluster cluster = RedisCluster.start(masters, 0)) {
				return run(out, options, scenario, new RedisAdmin(cluster));
			}
		}
		try (RedisServer server = (options.redisUrl() != null) ? RedisServer.at(options.redisUrl())
				: RedisServer.start()) {
			return run(out, options, scenario, new RedisAdmin(server));
		}
	}

	private static Result run(PrintStream out, Options options, Scenario scenario, RedisAdmin admin) throws Exception {
		Result result = new Result(options.scenario());
		result.put("java", Runtime.version().toString());
		result.put("cpus", Runtime.getRuntime().availableProcessors());
		result.put("redis", admin.info("server").get("redis_version"));
		result.put("redisMasters", admin.masters().size());
		result.put("scriptsSha1", scriptsSha1());
		result.put("loadAverageBefore", loadAverage());
		admin.deleteKeys(KEYSPACE.pattern());
		OptionalDouble lpush = OptionalDouble.empty();
		if (admin.cluster() != null) {
			out.println("No LPUSH baseline on a cluster (redis-benchmark's list lives on one master): no ratios.");
		}
		else if (options.lpushRequests() > 0) {
			lpush = LpushBaseline.run(admin, options.lpushRequests(), out);
		}
		Harness harness = new Harness(options, admin, out);
		scenario.run(harness, result);
		admin.deleteKeys(KEYSPACE.pattern());
		result.put("loadAverageAfter", loadAverage());
		lpush.ifPresent(result::lpushBaseline);
		result.print(out);
		return result;
	}

	/**
	 * Return the system load average of the last minute: other work on the machine makes
	 * the figures noisy.
	 * @return the load average
	 */
	private static double loadAverage() {
		return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
	}

	/**
	 * Return the start of the SHA-1 of Redq's hot-path scripts, so that a result can be
	 * told apart from one of another version of the library.
	 * @return 8 hex digits
	 */
	private static String scriptsSha1() throws NoSuchAlgorithmException {
		String scripts = Stream.of("enqueue", "push", "reserve", "ack", "migrate")
			.map((name) -> QueueScripts.load(name, List.class).getScriptAsString())
			.collect(Collectors.joining());
		byte[] digest = MessageDigest.getInstance("SHA-1").digest(scripts.getBytes(StandardCharsets.UTF_8));
		return HexFormat.of().formatHex(digest, 0, 4);
	}

}
