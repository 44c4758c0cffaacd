package io.redq.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * The command line of a benchmark run. Arguments the harness does not know go to the
 * Spring application.
 *
 * @param scenario the scenario to run
 * @param redisUrl the Redis to use, or {@code null} to start one (or a cluster with
 * {@code --cluster})
 * @param values the harness options by name
 * @param springArgs the arguments for the Spring application
 * @author Redq team
 * @since 0.1.0
 */
record Options(String scenario, @Nullable String redisUrl, Map<String, String> values, String[] springArgs) {

	static final String USAGE = """
			java -jar benchmarks.jar --scenario=NAME [options] [--redq.listener.concurrency=16 ...]
			  --redis=redis://host:port  Redis to use (default: REDQ_TEST_REDIS_URL, else a redis-server on a free port)
			  --jobs=N                   jobs measured (default per scenario)
			  --warmup=N                 jobs per warm-up round (default jobs/2, at most 100,000);
			                             rounds repeat until the JIT compiler is quiet, at most 10
			  --producers=N              threads dispatching batches of 1,000 (default 2)
			  --rate=N                   e2e: the most jobs dispatched per second (default 0: no limit)
			  --levels=N                 e2e: spread the jobs over N priority levels, from the highest down
			                             (default 1: every job at the default level)
			  --groups=N                 e2e: spread the jobs over N groups (default 0: none)
			  --shards=N                 spread the queue over N shards (redq.queues.bench.shards, default 1)
			  --cluster=N                start a Redis Cluster of N masters (no replicas) on free loopback ports
			                             instead of one redis-server, and report each master's commands and CPU
			  --threads=N                threads dispatching single jobs (default 8)
			  --spread=10s               timers: the span their due times cover
			  --lead=5s                  timers: time from the start of dispatching to the first due time
			  --gap=10ms                 idle-pickup: pause between jobs
			  --split=true               idle-pickup: split each pickup's time with MONITOR and Lettuce's reply times
			  --queues=10                idle-cost: queues with a handler
			  --duration=20s             idle-cost: measuring time; soak: total time
			  --lpush-requests=200000    redis-benchmark LPUSH requests; 0 skips it
			  --rounds=5                 search: rounds of every search and read
			  --steps=3                  chain: steps per chain
			  --hold=5ms                 results: how long a handler runs before it returns its result
			""";

	private static final List<String> NAMES = List.of("scenario", "redis", "jobs", "warmup", "producers", "rate",
			"levels", "groups", "cluster", "threads", "spread", "lead", "gap", "queues", "duration", "lpush-requests",
			"rounds", "steps", "hold", "split");

	static Options parse(String... args) {
		Map<String, String> values = new LinkedHashMap<>();
		List<String> springArgs = new ArrayList<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			String name = (arg.startsWith("--") && equals > 2) ? arg.substring(2, equals) : null;
			if ("shards".equals(name)) {
				springArgs
					.add("--redq.queues." + BenchmarkConfiguration.QUEUE + ".shards=" + arg.substring(equals + 1));
			}
			else if (name != null && NAMES.contains(name)) {
				values.put(name, arg.substring(equals + 1));
			}
			else if (arg.startsWith("--")) {
				springArgs.add(arg);
			}
			else {
				throw new IllegalArgumentException("Unexpected argument '" + arg + "'\n" + USAGE);
			}
		}
		return new Options(values.getOrDefault("scenario", ""), values.get("redis"), values,
				springArgs.toArray(String[]::new));
	}

	int intValue(String name, int defaultValue) {
		String value = this.values.get(name);
		return (value != null) ? Integer.parseInt(value.replace("_", "").replace(",", "")) : defaultValue;
	}

	Duration duration(String name, Duration defaultValue) {
		String value = this.values.get(name);
		return (value != null) ? DurationStyle.detectAndParse(value) : defaultValue;
	}

	int jobs(int defaultValue) {
		return intValue("jobs", defaultValue);
	}

	int warmup(int jobs) {
		return intValue("warmup", Math.min(jobs / 2, 100_000));
	}

	int producers() {
		return intValue("producers", 2);
	}

	int rate() {
		return intValue("rate", 0);
	}

	int threads() {
		return intValue("threads", 8);
	}

	boolean split() {
		return Boolean.parseBoolean(this.values.getOrDefault("split", "true"));
	}

	int lpushRequests() {
		return intValue("lpush-requests", 200_000);
	}

}
