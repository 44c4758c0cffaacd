package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.CompletedJob;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Retention of completed and dead jobs against a real Redis.
 *
 * @author Redq team
 */
class RetentionIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@Test
	void completedJobsLeaveNothingBehindByDefault() {
		Map<String, Long> none = ackCommands(0, 0);
		assertThat(this.template.hasKey(this.keys.completed())).isFalse();
		assertThat(this.operations.completedJobs(QUEUE, 10)).isEmpty();
		assertThat(none).doesNotContainKeys("zadd", "zremrangebyrank");
		Map<String, Long> kept = ackCommands(3, 10);
		// keeping ids costs two commands per batch of 10 (the statistics take the time
		// anyway), keeping none costs nothing
		assertThat(ScriptExecutions.minus(kept, none)).as("commands of an ack with ids kept %s, without %s", kept, none)
			.containsExactlyInAnyOrderEntriesOf(Map.of("zadd", 1L, "zremrangebyrank", 1L));
		assertThat(this.operations.completedJobs(QUEUE, 10)).hasSize(3);
	}

	@Test
	void theLatestCompletedIdsAreKeptNewestFirst() {
		this.operations.setCompletedMaxSize(3);
		enqueue(5, 0);
		for (ReservedJob job : this.listener.reserve(QUEUE, 5, LEASE).jobs()) {
			this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()));
		}
		List<CompletedJob> completed = this.operations.completedJobs(QUEUE, 10);
		assertThat(completed).extracting(CompletedJob::id).containsExactly("j4", "j3", "j2");
		assertThat(completed.get(0).completedAt()).isAfterOrEqualTo(completed.get(2).completedAt());
		assertThat(this.operations.completedJobs(QUEUE, 1)).extracting(CompletedJob::id).containsExactly("j4");
		assertThatIllegalArgumentException().isThrownBy(() -> this.operations.completedJobs(QUEUE, 0));
		JobStatus kept = this.operations.status(QUEUE, "j4");
		assertThat(kept.state()).isEqualTo(JobStatus.State.COMPLETED);
		assertThat(kept.at()).isEqualTo(completed.get(0).completedAt());
		assertThat(this.operations.status(QUEUE, "j1").state()).as("trimmed").isEqualTo(JobStatus.State.NONE);
		this.operations.purge(QUEUE);
		assertThat(this.operations.completedJobs(QUEUE, 10)).isEmpty();
	}

	@Test
	void idsKeptBeforeTheMaxSizeWasSetToZeroAreDroppedByTheMigrator() {
		this.operations.setCompletedMaxSize(3);
		enqueue(4, 0);
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 4, LEASE).jobs();
		this.listener.getLeaseOperations()
			.ack(QUEUE, List.of(jobs.get(0).lease(), jobs.get(1).lease(), jobs.get(2).lease()));
		assertThat(this.operations.completedJobs(QUEUE, 10)).hasSize(3);
		this.operations.setCompletedMaxSize(0);
		this.listener.getLeaseOperations().ack(QUEUE, List.of(jobs.get(3).lease()));
		this.listener.migrate(QUEUE);
		assertThat(this.operations.completedJobs(QUEUE, 10)).isEmpty();
		assertThat(this.template.hasKey(this.keys.completed())).isFalse();
	}

	@Test
	void theMigratorDeletesDeadJobsPastTheirAgeWithEveryKeyTheyOwn() {
		this.operations.setDeadLetterTimeToLive(Duration.ofMillis(300));
		enqueue(3, 0);
		for (ReservedJob job : this.listener.reserve(QUEUE, 3, LEASE).jobs()) {
			this.listener.getLeaseOperations().fail(QUEUE, job.lease(), "failed", null);
		}
		Migration early = this.listener.migrate(QUEUE);
		assertThat(early.trimmedDeadJobs()).isZero();
		assertThat(early.nextDue() - early.redisTime()).as("wake up when the first dead job is too old")
			.isBetween(1L, 300L);
		// jobs that died in different milliseconds may age out in separate passes
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.listener.migrate(QUEUE).trimmedDeadJobs() > 0 && deadCount() == 0);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.keys("redq:*")).containsOnly(this.keys.sequence(), this.keys.wake(), this.keys.model(),
				this.keys.stats(), this.keys.leases());
		assertThat(this.listener.migrate(QUEUE).nextDue()).isEqualTo(-1);
	}

	@Test
	void theMigratorTrimsDeadJobsBeyondALoweredMaxSizeWithEveryKeyTheyOwn() {
		enqueue(5, 0);
		for (ReservedJob job : this.listener.reserve(QUEUE, 5, LEASE).jobs()) {
			this.listener.getLeaseOperations().fail(QUEUE, job.lease(), "failed", null);
		}
		// a restart with a lower limit: nothing dies, the migrator trims
		this.operations.setDeadLetterMaxSize(2);
		assertThat(this.listener.migrate(QUEUE).trimmedDeadJobs()).isEqualTo(3);
		assertThat(this.template.opsForZSet().range(this.keys.dead(), 0, -1)).containsExactly("j3", "j4");
		for (String key : List.of(this.keys.jobs(), this.keys.attempts(), this.keys.errors())) {
			assertThat(this.template.opsForHash().keys(key)).as(key).containsExactlyInAnyOrder("j3", "j4");
		}
		assertThat(this.listener.migrate(QUEUE).trimmedDeadJobs()).isZero();
	}

	@Test
	void redisMemoryReturnsToBaselineAfter100000JobsDiedAndWereTrimmed() {
		// a first round grows Redis's own buffers (the script client's argument and reply
		// buffers grow to the largest batch and stay), so that the baseline holds them
		long warmUpPeak = dieAndTrim(1000);
		long baseline = usedMemory();
		long peak = dieAndTrim(100_000);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.command("DBSIZE").equals("5"));
		long after = usedMemory();
		assertThat(this.template.keys("redq:*")).containsOnly(this.keys.sequence(), this.keys.wake(), this.keys.model(),
				this.keys.stats(), this.keys.leases());
		assertThat(peak - baseline).as("memory of 100,000 dead jobs").isGreaterThan(100_000 * 100L);
		assertThat(after - baseline)
			.as("memory left after trimming (warm-up peak %d, baseline %d, peak %d)", warmUpPeak, baseline, peak)
			.isLessThan(64 * 1024);
	}

	/**
	 * Acknowledge a batch of 10 jobs, keeping the given number of completed ids.
	 * @return the Redis commands the acknowledgement ran, by name
	 */
	private Map<String, Long> ackCommands(int keep, int from) {
		this.operations.setCompletedMaxSize(keep);
		enqueue(10, from);
		List<Lease> leases = this.listener.reserve(QUEUE, 10, LEASE).jobs().stream().map(ReservedJob::lease).toList();
		return ScriptExecutions.commandsOf(this.redis,
				() -> assertThat(this.listener.getLeaseOperations().ack(QUEUE, leases)).isEmpty());
	}

	/**
	 * Let jobs die (each with its envelope, attempts and error), then trim them all by
	 * age through the migrator.
	 * @return the used memory with every job dead
	 */
	private long dieAndTrim(int jobs) {
		this.operations.setDeadLetterMaxSize(jobs);
		this.operations.setDeadLetterTimeToLive(Duration.ofDays(1));
		for (int from = 0; from < jobs; from += 1000) {
			enqueue(1000, from);
			// a lease of 1 ms on the only attempt, with no stall allowed: the migrator
			// buries them
			this.listener.reserve(QUEUE, 1000, Duration.ofMillis(1));
		}
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.listener.migrate(QUEUE, 0).expiredLeases() == 0 && deadCount() == jobs);
		assertThat(this.template.opsForHash().size(this.keys.errors())).isEqualTo(jobs);
		long peak = usedMemory();
		this.operations.setDeadLetterTimeToLive(Duration.ofMillis(1));
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.listener.migrate(QUEUE).trimmedDeadJobs() == 0 && deadCount() == 0);
		return peak;
	}

	private long deadCount() {
		Long count = this.template.opsForZSet().zCard(this.keys.dead());
		return (count != null) ? count : 0;
	}

	private long usedMemory() {
		// the slow log keeps the arguments of the latest slow commands (big batches)
		this.redis.command("SLOWLOG", "RESET");
		for (String line : this.redis.command("INFO", "memory").split("\r?\n")) {
			if (line.startsWith("used_memory:")) {
				return Long.parseLong(line.substring("used_memory:".length()).trim());
			}
		}
		throw new IllegalStateException("No used_memory in INFO memory");
	}

	private void enqueue(int count, int from) {
		List<EnqueueCommand> commands = new ArrayList<>(count);
		for (int i = from; i < from + count; i++) {
			commands.add(new EnqueueCommand("j" + i, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":1,\"payload\":" + i + "}"));
		}
		// the dispatch is forgotten at once: these tests measure what jobs leave behind
		this.operations.getStore().getResendProtection().setWindow(Duration.ofMillis(1));
		this.operations.getEnqueueOperations().enqueue(QUEUE, commands);
	}

}
