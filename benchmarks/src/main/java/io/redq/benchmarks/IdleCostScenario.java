package io.redq.benchmarks;

import java.time.Duration;

import io.redq.benchmarks.BenchmarkConfiguration.IdleJobs;
import io.redq.queue.autoconfigure.JobQueueProperties;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code idle-cost}: the Redis commands per second of an application whose
 * {@code --queues} queues (10 by default) each have a handler and no jobs, measured over
 * {@code --duration} after the containers settle.
 *
 * @author Redq team
 * @since 0.1.0
 */
class IdleCostScenario implements Scenario {

	private static final Duration SETTLE = Duration.ofSeconds(2);

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int queues = harness.options().intValue("queues", 10);
		Duration duration = harness.options().duration("duration", Duration.ofSeconds(20));
		try (ConfigurableApplicationContext context = harness.start(IdleJobs.class, "bench.queues=" + queues)) {
			harness.describe(context, result);
			result.put("pollTimeoutMs",
					context.getBean(JobQueueProperties.class).getListener().getPollTimeout().toMillis());
			Thread.sleep(SETTLE.toMillis());
			RedisStats before = RedisStats.take(harness.redis());
			Thread.sleep(duration.toMillis());
			RedisStats stats = RedisStats.take(harness.redis()).since(before);
			double seconds = stats.seconds();
			result.put("queues", queues);
			result.put("seconds", seconds);
			result.put("roundTripsPerSecond", stats.roundTrips() / seconds);
			result.put("commandsPerSecond", stats.total() / seconds);
			result.put("commandsInScriptsPerSecond", (stats.total() - stats.roundTrips()) / seconds);
			result.put("redisCpuPercent", 100 * stats.cpuSeconds() / seconds);
			result.put("commandCallsPerSecond", Result.perUnit(stats, seconds));
		}
	}

}
