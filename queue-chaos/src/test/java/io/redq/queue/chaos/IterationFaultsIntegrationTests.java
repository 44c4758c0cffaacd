package io.redq.queue.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.redis.EnqueueCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Long jobs that iterate over a cursor, on worker processes that die: the next attempt
 * resumes at the cursor written last.
 *
 * @author Redq team
 */
class IterationFaultsIntegrationTests extends ChaosSupport {

	private static final int ITEMS = 400;

	/** The workers' {@code redq.progress.interval}: the default. */
	private static final Duration INTERVAL = Duration.ofSeconds(1);

	/** The ledger's times are whole milliseconds, read a moment after each boundary. */
	private static final long CLOCK_SLACK_MILLIS = 5;

	@Test // issue 38
	void killedWorkersIterationResumesAtItsLastCursorRepeatingAtMostOneIntervalOfItemsAndLosingNone() {
		startRedis();
		List<WorkerProcess> workers = startWorkers(2);
		this.operations.getEnqueueOperations()
			.enqueue(QUEUE, List.of(new EnqueueCommand("long", Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"" + ChaosJobs.ITERATION_JOB_NAME + "\",\"maxAttempts\":3,\"payload\":" + ITEMS + "}")));
		awaitEntries((entry) -> entry.is("ITEM"), ITEMS / 3, Duration.ofSeconds(30));
		WorkerProcess victim = workers.stream()
			.filter((worker) -> worker.ledger().stream().anyMatch((entry) -> entry.is("ITEM")))
			.findFirst()
			.orElseThrow();
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();
		List<Long> victimTimes = victim.ledger()
			.stream()
			.filter((entry) -> entry.is("ITEM"))
			.map(LedgerEntry::time)
			.toList();

		awaitDrained(Duration.ofSeconds(30));
		Map<String, Long> runs = entries((entry) -> entry.is("ITEM")).stream()
			.collect(Collectors.groupingBy(LedgerEntry::id, Collectors.counting()));
		assertThat(runs).hasSize(ITEMS);
		assertThat(runs.values()).allMatch((count) -> count <= 2);
		long repeated = runs.values().stream().filter((count) -> count == 2).count();
		long bound = mostWithinAnInterval(victimTimes) + 1;
		report("kill -9 of an iteration after " + victimTimes.size() + " of " + ITEMS + " items: " + repeated
				+ " repeated, at most " + bound + " (the items of one " + INTERVAL.toMillis() + " ms interval)");
		// the items started since the cursor's last write, all within one interval of
		// it, and the item in progress at it
		assertThat(repeated).isLessThanOrEqualTo(bound);
		assertThat(this.operations.deadJob(QUEUE, "long")).isNull();
	}

	private static long mostWithinAnInterval(List<Long> times) {
		Function<Long, Long> within = (from) -> times.stream()
			.filter((at) -> at >= from && at - from <= INTERVAL.toMillis() + CLOCK_SLACK_MILLIS)
			.count();
		return times.stream().map(within).max(Long::compare).orElse(0L);
	}

}
