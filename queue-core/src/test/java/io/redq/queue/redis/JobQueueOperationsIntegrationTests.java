package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.core.DeadJob;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.RateLimit;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ValueEncoding;
import org.springframework.data.redis.connection.ValueEncoding.RedisValueEncoding;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobQueueOperations}: the Lua scripts against a real Redis.
 *
 * @author Redq team
 */
class JobQueueOperationsIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration ADMIT_LEASE = Duration.ofMinutes(1);

	@Test
	void enqueuedJobIsReservedWithLeaseAndAckedLeavesNothingBehind() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "one");
		Reservation reservation = this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30));
		assertThat(reservation.jobs()).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("a");
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(job.envelope()).startsWith("{\"createdAt\":").contains("\"payload\":\"one\"");
		});
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "a"))
			.isEqualTo(reservation.redisTime() + 30_000.0);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(reservation.jobs().get(0).lease()))).isEmpty();
		// reserved, left with its member at +inf, goes with the migrator's next pass
		this.listener.migrate(QUEUE);
		assertThat(this.template.keys("redq:*"))
			.as("besides the dispatch, remembered for the re-send window, the statistics and the leases hash")
			.filteredOn((key) -> !key.contains(":sent:"))
			.containsOnly(this.keys.sequence(), this.keys.wake(), this.keys.model(), this.keys.stats(),
					this.keys.leases());
		assertThat(this.template.opsForHash().keys(this.keys.leases())).as("only the field that keeps a hash table")
			.containsExactly("");
	}

	@Test // GH-38
	void aJobWhoseWaitersAskForShardedPubSubIsAcknowledgedOnEveryRedisVersion() {
		// a waiter of an instance on a Cluster of Redis 7 asks for SPUBLISH, which a
		// master still on 6.2 during a rolling upgrade does not know
		this.template.opsForValue().set(this.keys.waiting(), "s");
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "one");
		Reservation reservation = this.listener.reserve(QUEUE, 1, Duration.ofSeconds(30));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(reservation.jobs().get(0).lease()))).isEmpty();
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.NONE);
		assertThat(this.operations.stats(QUEUE).pending()).isZero();
	}

	@Test
	void reservedJobsKeepTheirOrderAndBatchSize() {
		for (int i = 0; i < 5; i++) {
			enqueue("j" + i, Due.NOW, DuplicatePolicy.KEEP, i);
		}
		assertThat(this.listener.reserve(QUEUE, 3, Duration.ofSeconds(30)).jobs()).extracting(ReservedJob::id)
			.containsExactly("j0", "j1", "j2");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(2, 0, 3, 0));
	}

	@Test
	void reservingAHundredJobsRunsTheSameCommandsAsReservingOne() {
		// one job stays behind, so that both reservations wake another listener
		for (int i = 0; i < 102; i++) {
			enqueue("j" + i, Due.NOW, DuplicatePolicy.KEEP, i);
		}
		Map<String, Long> one = reserveCommands(1);
		Map<String, Long> hundred = reserveCommands(100);
		// the envelopes and the leases; the attempts and earlier runs, which no job has
		// here, only asked whether there are any
		assertThat(hundred).isEqualTo(one)
			.containsEntry("hmget", 1L)
			.containsEntry("hset", 1L)
			.doesNotContainKey("hdel");
	}

	@Test
	void theLeasesHashIsAHashTableEvenWithFewLeasesSoThatLookupsDoNotSearchIt() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		reserveOne();
		assertThat(this.template.execute((RedisCallback<ValueEncoding>) (connection) -> connection.keyCommands()
			.encodingOf(this.keys.leases().getBytes(StandardCharsets.UTF_8)))).isEqualTo(RedisValueEncoding.HASHTABLE);
	}

	@Test
	void aReadyIdWithoutDataIsRecordedDeadWithTheReason() {
		enqueue("gone", Due.NOW, DuplicatePolicy.KEEP, "x");
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		// something other than Redq deleted the envelope
		this.template.opsForHash().delete(this.keys.jobs(), "gone");
		Reservation reservation = this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30));
		assertThat(reservation.jobs()).extracting(ReservedJob::id).containsExactly("a");
		assertThat(reservation.missing()).containsExactly("gone");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 1));
		DeadJob dead = this.operations.deadJob(QUEUE, "gone");
		assertThat(dead).isNotNull();
		assertThat(dead.envelope()).isEmpty();
		assertThat(dead.error()).isEqualTo(
				"Missing job data: the id was ready, but the jobs hash held no envelope for it (deleted outside Redq?)");
	}

	@Test
	void aRunningJobKeepsItsAttemptInItsLeaseAndTheAttemptsHashOnlyWhileItWaits() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob first = reserveOne();
		assertThat(first.token()).endsWith(":1");
		assertThat(this.template.opsForHash().get(this.keys.leases(), "a")).isEqualTo(first.token());
		// the hash a reserve and an ack search stays empty while jobs succeed first time
		assertThat(this.template.hasKey(this.keys.attempts())).isFalse();
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, first.lease(), "failure", Duration.ZERO)).isTrue();
		assertThat(this.template.opsForHash().get(this.keys.attempts(), "a")).isEqualTo("1");
		ReservedJob second = reserveOne();
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.token()).endsWith(":2");
		assertThat(this.template.hasKey(this.keys.attempts())).isFalse();
		this.listener.getLeaseOperations().ack(QUEUE, List.of(second.lease()));
		assertThat(this.template.keys("*")).doesNotContain(this.keys.attempts(), this.keys.jobs());
		assertThat(this.template.opsForHash().keys(this.keys.leases())).as("only the field that keeps a hash table")
			.containsExactly("");
	}

	@Test
	void aBatchThatRepeatsAnIdSeesItsOwnEarlierJob() {
		List<DispatchResult> results = this.enqueuer.enqueue(QUEUE,
				List.of(command("a", DuplicatePolicy.KEEP, "first"), command("b", DuplicatePolicy.KEEP, "other"),
						command("a", DuplicatePolicy.KEEP, "kept out"), command("a", DuplicatePolicy.REPLACE, "last")));
		assertThat(results).extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactly(tuple("a", Outcome.CREATED), tuple("b", Outcome.CREATED), tuple("a", Outcome.KEPT),
					tuple("a", Outcome.REPLACED));
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs())
			.extracting(ReservedJob::id, (job) -> job.envelope().contains("\"payload\":\"last\""))
			.containsExactly(tuple("b", false), tuple("a", true));
	}

	@Test
	void ackOfABatchRemovesTheCompletedAndRefusesStaleTokens() {
		for (int i = 0; i < 3; i++) {
			enqueue("j" + i, Due.NOW, DuplicatePolicy.KEEP, i);
		}
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 3, Duration.ofSeconds(30)).jobs();
		Lease stale = new Lease("j1", "0");
		assertThat(
				this.listener.getLeaseOperations().ack(QUEUE, List.of(jobs.get(0).lease(), stale, jobs.get(2).lease())))
			.containsExactly("j1");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactly("j1");
	}

	@Test
	void scriptCacheFlushIsRecoveredTransparently() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		this.redis.command("SCRIPT", "FLUSH");
		enqueue("b", Due.NOW, DuplicatePolicy.KEEP, "y");
		this.redis.command("SCRIPT", "FLUSH");
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).hasSize(2);
	}

	@Test
	void delayedJobBecomesReadyOnlyWhenDue() {
		enqueue("later", new Due(false, 300), DuplicatePolicy.KEEP, "x");
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).isEmpty();
		Migration early = this.listener.migrate(QUEUE);
		assertThat(early.dueJobs()).isZero();
		assertThat(early.nextDue() - early.redisTime()).isBetween(1L, 300L);
		await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).hasSize(1);
	}

	@Test
	void duplicateIdKeepsTheExistingPendingJob() {
		assertThat(enqueue("order-17", Due.NOW, DuplicatePolicy.KEEP, "first")).isEqualTo(Outcome.CREATED);
		assertThat(enqueue("order-17", new Due(false, 60_000), DuplicatePolicy.KEEP, "second")).isEqualTo(Outcome.KEPT);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).singleElement()
			.satisfies((job) -> assertThat(job.envelope()).contains("\"payload\":\"first\""));
	}

	@Test
	void duplicateIdReplacesPayloadAndDueTimeOfThePendingJob() {
		enqueue("order-17", Due.NOW, DuplicatePolicy.REPLACE, "first");
		assertThat(enqueue("order-17", new Due(false, 60_000), DuplicatePolicy.REPLACE, "second"))
			.isEqualTo(Outcome.REPLACED);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(enqueue("order-17", Due.NOW, DuplicatePolicy.REPLACE, "third")).isEqualTo(Outcome.REPLACED);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).singleElement()
			.satisfies((job) -> assertThat(job.envelope()).contains("\"payload\":\"third\""));
	}

	@Test
	void duplicateIdNeverTouchesARunningJobButADeadOneStartsAfresh() {
		enqueue("a", Due.NOW, DuplicatePolicy.REPLACE, "first");
		ReservedJob running = reserveOne();
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE, "second")).isEqualTo(Outcome.DROPPED);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, running.lease(), "boom", null)).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "third")).isEqualTo(Outcome.CREATED);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
		assertThat(reserveOne().attempt()).isEqualTo(1);
	}

	@Test
	void cancelRemovesPendingJobsOnly() {
		enqueue("ready", Due.NOW, DuplicatePolicy.KEEP, "x");
		enqueue("delayed", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		enqueue("running", Due.NOW, DuplicatePolicy.KEEP, "x");
		assertThat(this.operations.cancel(QUEUE, "delayed")).isTrue();
		assertThat(this.operations.cancel(QUEUE, "ready")).isTrue();
		reserveOne();
		assertThat(this.operations.cancel(QUEUE, "running")).isFalse();
		assertThat(this.operations.cancel(QUEUE, "unknown")).isFalse();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsOnly("running");
	}

	@Test
	void expiredLeaseIsRedeliveredAndTheStaleTokenIsRefused() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob stalled = this.listener.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs().get(0);
		// a renewal confirms that its run started: the expiry uses the attempt
		assertThat(confirmStarted(stalled, Duration.ofMillis(50))).isEmpty();
		await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		ReservedJob redelivered = reserveOne();
		assertThat(redelivered.attempt()).isEqualTo(2);
		assertThat(redelivered.token()).isNotEqualTo(stalled.token());
		assertThat(confirmStarted(stalled, Duration.ofMinutes(1))).containsExactly(stalled.token());
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(stalled.lease()))).containsExactly("a");
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, stalled.lease(), "late", null)).isFalse();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(redelivered.lease()))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void expiredLeaseOfAStartedRunOnTheLastAttemptBuriesTheJobWithTheReason() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		for (int attempt = 1; attempt <= 2; attempt++) {
			ReservedJob job = this.listener.reserve(QUEUE, 1, Duration.ofMillis(20)).jobs().get(0);
			assertThat(job.attempt()).isEqualTo(attempt);
			confirmStarted(job, Duration.ofMillis(20));
			await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		}
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a"))
			.isEqualTo("Lease expired on attempt 2: the worker died or stalled");
	}

	@Test
	void aJobWhoseRunNeverStartedGetsItsAttemptBackUpToTheMaxStallsThenUsesIt() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		List<Integer> attempts = new ArrayList<>();
		// a worker that dies (or never sees the reply) before its first renewal, again
		// and again, with one stall allowed and two attempts
		while (this.operations.stats(QUEUE).dead() == 0) {
			attempts.add(this.listener.reserve(QUEUE, 1, Duration.ofMillis(20)).jobs().get(0).attempt());
			await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE, 1).expiredLeases() == 1);
			assertThat(attempts).hasSizeLessThanOrEqualTo(3);
		}
		assertThat(attempts).containsExactly(1, 1, 2);
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a")).isEqualTo(
				"Stalled before its run was confirmed on attempt 2, past the 1 stall(s) allowed: its worker died or "
						+ "stalled before its first lease renewal");
		// a new dispatch of the id starts afresh, its stalls too
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		assertThat(this.template.hasKey(this.keys.stalls())).isFalse();
	}

	@Test
	void aPendingJobReplacedByANewDispatchLosesItsStalls() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		this.listener.reserve(QUEUE, 1, Duration.ofMillis(20));
		await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE, 1).expiredLeases() == 1);
		assertThat(this.template.opsForHash().get(this.keys.stalls(), "a")).isEqualTo("1");
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE, "y")).isEqualTo(Outcome.REPLACED);
		assertThat(this.template.hasKey(this.keys.stalls())).isFalse();
	}

	@Test
	void aStallIsGivenBackOnceWhenTheMigrationIsResent() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		this.listener.reserve(QUEUE, 1, Duration.ofMillis(20));
		await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE, 1).expiredLeases() == 1);
		// a client that lost the reply sends the same migration again
		assertThat(this.listener.migrate(QUEUE, 1).expiredLeases()).isZero();
		assertThat(this.template.opsForHash().get(this.keys.stalls(), "a")).isEqualTo("1");
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a")).isEqualTo(
				"Stalled before its run was confirmed (stall 1 of at most 1, attempt 1 given back): its worker died, "
						+ "stalled or lost the reply before its first lease renewal");
		ReservedJob job = reserveOne();
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()))).isEmpty();
		assertThat(this.template.hasKey(this.keys.stalls())).isFalse();
		assertThat(this.template.hasKey(this.keys.started())).isFalse();
	}

	@Test
	void aRenewalConfirmsAStartedRunOnceAndExtendsAWaitingJobByTheWaitingLease() {
		enqueue("started", Due.NOW, DuplicatePolicy.KEEP, "x");
		enqueue("waiting", Due.NOW, DuplicatePolicy.KEEP, "x");
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 2, Duration.ofSeconds(1)).jobs();
		long now = this.listener.migrate(QUEUE).redisTime();
		for (int i = 0; i < 2; i++) {
			// re-sent: the same call again changes nothing
			assertThat(this.listener.getLeaseOperations()
				.extend(QUEUE, List.of(jobs.get(0).lease()), List.of(jobs.get(1).lease()), Duration.ofMinutes(5),
						Duration.ofSeconds(5)))
				.isEmpty();
		}
		assertThat(this.template.opsForSet().members(this.keys.started())).containsExactly("started");
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "started"))
			.isGreaterThanOrEqualTo(now + Duration.ofMinutes(5).toMillis());
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "waiting")).isBetween(now + 5000.0,
				now + 6000.0);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, jobs.get(0).lease(), "boom", Duration.ZERO)).isTrue();
		assertThat(this.template.hasKey(this.keys.started())).as("a run that ended is no longer started").isFalse();
	}

	@Test
	void aRenewalOfMoreLeasesThanOneScriptCallTakesExtendsAndConfirmsThemAll() {
		int jobs = 8 * QueueStore.MAX_BATCH_SIZE + 1;
		List<EnqueueCommand> commands = new ArrayList<>(jobs);
		for (int i = 0; i < jobs; i++) {
			commands.add(command("j" + i, DuplicatePolicy.KEEP, "x"));
		}
		this.enqueuer.enqueue(QUEUE, commands);
		List<Lease> leases = new ArrayList<>(jobs);
		while (leases.size() < jobs) {
			this.listener.reserve(QUEUE, QueueStore.MAX_BATCH_SIZE, Duration.ofSeconds(5))
				.jobs()
				.forEach((job) -> leases.add(job.lease()));
		}
		long now = this.listener.migrate(QUEUE).redisTime();
		assertThat(this.listener.getLeaseOperations()
			.extend(QUEUE, leases, List.of(), Duration.ofMinutes(5), Duration.ofSeconds(5))).isEmpty();
		assertThat(this.template.opsForSet().size(this.keys.started())).isEqualTo(jobs);
		assertThat(this.template.opsForZSet().count(this.keys.reserved(), now + 60_000, Double.MAX_VALUE))
			.isEqualTo(jobs);
	}

	@Test
	void aRunThatFinishesAfterItsLeaseEndedIsAcceptedWhileNoWorkerReservedItsJobSince() {
		// back in the ready list
		Lease stalled = runPastItsLease("ready", 3, false);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(stalled))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		// dead of its expired lease, its only attempt
		stalled = runPastItsLease("dead", 1, true);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(stalled))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		// reserved again by another worker, which starts it on that lease: that run
		// stands
		stalled = runPastItsLease("again", 3, false);
		ReservedJob other = reserveOne();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(stalled))).containsExactly("again");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(other.lease()))).isEmpty();
		assertThat(this.template.hasKey(this.keys.runs())).as("forgotten with the job").isFalse();
	}

	/**
	 * Start a job whose lease then expires and is recovered by the migrator (its worker
	 * stalled past it).
	 */
	private Lease runPastItsLease(String id, int maxAttempts, boolean confirmed) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"test\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"x\"}")));
		Duration shortLease = Duration.ofMillis(50);
		Lease lease = this.listener.reserve(QUEUE, 1, shortLease).jobs().get(0).lease();
		assertThat(this.listener.getLeaseOperations().start(QUEUE, List.of(lease), shortLease)).isEmpty();
		if (confirmed) {
			assertThat(
					this.listener.getLeaseOperations().extend(QUEUE, List.of(lease), List.of(), shortLease, shortLease))
				.isEmpty();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		return lease;
	}

	@Test
	void anAdmitReSentAfterItDeferredTheJobAnswersTheDeferralAgain() {
		Gates gates = new Gates("k", "test", 0, 0, null);
		enqueueAndAdmit("holder", gates);
		enqueue("deferred", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob deferred = reserveOne();
		assertThat(admit(deferred, gates)).isEqualTo(GateOperations.PARKED);
		assertThat(admit(deferred, gates)).as("not a lost lease").isEqualTo(GateOperations.PARKED);
		assertThat(this.template.opsForZSet().zCard(this.keys.lines())).as("in line once").isOne();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 1, 0));
	}

	@Test
	void parkedJobsAreWokenInLineOrderAsManyAsPlacesWereFreed() {
		Gates gates = new Gates(null, "test", 2, 0, null);
		ReservedJob first = enqueueAndAdmit("h1", gates);
		ReservedJob second = enqueueAndAdmit("h2", gates);
		for (String id : List.of("w1", "w2", "w3", "w4")) {
			assertThat(enqueueAndDefer(id, gates)).isEqualTo(GateOperations.PARKED);
		}
		Migration migration = this.listener.migrate(QUEUE);
		assertThat(migration.dueJobs()).as("a parked job is not due").isZero();
		assertThat(migration.nextDue()).as("the holders' leases, not a parked job")
			.isBetween(migration.redisTime(), migration.redisTime() + 60_000);
		this.listener.getGateOperations().leaveGates(QUEUE, first.lease(), gates, Duration.ZERO, 0);
		this.listener.getGateOperations().leaveGates(QUEUE, first.lease(), gates, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).as("one place freed, one woken, once")
			.isEqualTo(new QueueStats(1, 3, 2, 0));
		ReservedJob woken = reserveOne();
		assertThat(woken.id()).isEqualTo("w1");
		assertThat(admit(woken, gates)).isZero();
		this.listener.getGateOperations().leaveGates(QUEUE, second.lease(), gates, Duration.ZERO, 0);
		this.listener.getGateOperations().leaveGates(QUEUE, woken.lease(), gates, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).as("two places freed, two woken")
			.isEqualTo(new QueueStats(2, 1, 3, 0));
		// each wake puts its job at the head of the ready line
		assertThat(List.of(reserveOne().id(), reserveOne().id())).containsExactly("w3", "w2");
		assertThat(this.operations.status(QUEUE, "w4").at()).as("still parked").isNull();
	}

	@Test // GH-36
	void aJobHandedOverWithTheGatesOfTheRunThatLeftIsLetThroughThemInTheSameCall() {
		Gates gates = new Gates(null, "test", 1, 2, null, "acme", 1);
		enqueueInGroup("holder", "\"group\":\"acme\",");
		ReservedJob holder = reserveOne();
		assertThat(admit(holder, gates)).isZero();
		// at another level: the level is no gate
		enqueueInGroup("w1", "\"priority\":7,\"group\":\"acme\",");
		assertThat(admit(reserveOne(), gates)).isEqualTo(GateOperations.PARKED);
		GateOperations.HandOver handOver = this.listener.getGateOperations()
			.leaveGates(QUEUE, holder.lease(), gates, Duration.ofMinutes(1), 0);
		assertThat(handOver).isNotNull();
		assertThat(handOver.job().id()).isEqualTo("w1");
		assertThat(handOver.admitted()).isTrue();
		String next = "w1:" + handOver.job().token();
		for (String running : this.keys.gates(gates).subList(2, 4)) {
			assertThat(this.template.opsForZSet().range(running, 0, -1)).as(running).containsExactly(next);
		}
		assertThat(this.template.opsForZSet().range(this.keys.gates(gates).get(0), 0, -1)).containsExactly(next);
		assertThat(this.template.opsForZSet().range(this.keys.holding(), 0, -1)).containsExactly(next);
		assertThat(this.template.opsForHash().keys(this.keys.parked())).isEmpty();
		assertThat(admit(handOver.job(), gates)).as("a worker that admits it all the same finds it admitted").isZero();
		assertThat(this.template.opsForZSet().zCard(this.keys.gates(gates).get(2))).isOne();
	}

	@Test // GH-36
	void aJobHandedOverWithOtherGatesThanTheRunThatLeftPassesItsOwn() {
		Gates gates = new Gates(null, "test", 1, 1, null);
		Gates grouped = new Gates(null, "test", 0, 1, null, "acme", 1);
		ReservedJob holder = enqueueAndAdmit("holder", gates);
		enqueueInGroup("w1", "\"group\":\"acme\",");
		assertThat(admit(reserveOne(), grouped)).isEqualTo(GateOperations.PARKED);
		GateOperations.HandOver handOver = this.listener.getGateOperations()
			.leaveGates(QUEUE, holder.lease(), gates, Duration.ofMinutes(1), 0);
		assertThat(handOver).isNotNull();
		assertThat(handOver.admitted()).as("in a group the leaver is not in").isFalse();
		assertThat(this.template.opsForZSet().zCard(this.keys.gates(gates).get(3))).isZero();
		assertThat(admit(handOver.job(), grouped)).isZero();
	}

	@Test // GH-36
	void aRunThatLeavesTakesTheFirstInLineForItsWorkerAndWakesTheLinesOfTheOtherGatesItFreed() {
		Gates gates = new Gates("k", "test", 1, 0, null);
		ReservedJob holder = enqueueAndAdmit("holder", gates);
		enqueueAndDefer("w1", gates);
		enqueueAndDefer("w2", gates);
		Gates otherKey = new Gates("other", "test", 1, 0, null);
		assertThat(enqueueAndDefer("x1", otherKey)).as("in the line of the job's running set")
			.isEqualTo(GateOperations.PARKED);
		GateOperations.HandOver handOver = this.listener.getGateOperations()
			.leaveGates(QUEUE, holder.lease(), gates, Duration.ofMinutes(1), 0);
		assertThat(handOver).isNotNull();
		assertThat(handOver.admitted()).as("an exclusive key is of the payload: the worker lets it through").isFalse();
		ReservedJob next = handOver.job();
		assertThat(next.id()).as("the first in the line of the first gate freed").isEqualTo("w1");
		assertThat(next.attempt()).as("its attempt given back when it was parked").isOne();
		assertThat(this.operations.stats(QUEUE)).as("reserved for the caller; x1 woken, w2 still parked")
			.isEqualTo(new QueueStats(1, 1, 2, 0));
		assertThat(this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), gates, Duration.ofMinutes(1), 0))
			.as("a re-sent leave takes no one")
			.isNull();
		ReservedJob woken = reserveOne();
		assertThat(woken.id()).isEqualTo("x1");
		assertThat(admit(next, gates)).as("it passes its gates as a reserved job does").isZero();
		assertThat(admit(woken, otherKey)).as("the running set is taken again").isEqualTo(GateOperations.PARKED);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(next.lease()))).isEmpty();
		// a paused queue hands out nothing: the jobs woken are made ready, for when it
		// resumes
		this.operations.pause(QUEUE);
		assertThat(this.listener.getGateOperations().leaveGates(QUEUE, next.lease(), gates, Duration.ofMinutes(1), 0))
			.isNull();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(2, 0, 1, 0));
	}

	@Test
	void placesFreedWithoutARunLeavingFillOneAdmissionAfterAnother() {
		Gates one = new Gates(null, "test", 1, 0, null);
		ReservedJob holder = enqueueAndAdmit("holder", one);
		for (String id : List.of("w1", "w2", "w3", "w4")) {
			enqueueAndDefer(id, one);
		}
		// the limit is raised to 3 while they wait
		Gates three = new Gates(null, "test", 3, 0, null);
		this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), three, Duration.ZERO, 0);
		assertThat(admit(reserveOne(), three)).isZero();
		assertThat(this.operations.stats(QUEUE)).as("admitted with room left: the next one is woken")
			.isEqualTo(new QueueStats(1, 2, 2, 0));
		assertThat(admit(reserveOne(), three)).isZero();
		assertThat(admit(reserveOne(), three)).isZero();
		assertThat(this.operations.stats(QUEUE)).as("the last place taken: no more woken")
			.isEqualTo(new QueueStats(0, 1, 4, 0));
	}

	@Test
	void aWokenJobThatFindsItsPlaceTakenAgainKeepsItsPlaceInLine() {
		Gates gates = new Gates("k", "test", 0, 0, null);
		ReservedJob holder = enqueueAndAdmit("holder", gates);
		enqueueAndDefer("w1", gates);
		enqueueAndDefer("w2", gates);
		this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), gates, Duration.ZERO, 0);
		ReservedJob woken = reserveOne();
		// another job takes the key between the waking and the admission
		ReservedJob other = enqueueAndAdmit("other", gates);
		assertThat(admit(woken, gates)).isEqualTo(GateOperations.PARKED);
		this.listener.getGateOperations().leaveGates(QUEUE, other.lease(), gates, Duration.ZERO, 0);
		assertThat(reserveOne().id()).isEqualTo("w1");
	}

	@Test
	void aHolderWhoseLeaseExpiresWakesTheFirstInLineThroughTheMigrator() {
		Gates gates = new Gates("k", "test", 1, 0, null);
		enqueue("holder", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob holder = reserveOne();
		// its worker dies: nothing renews or leaves its gates
		assertThat(this.listener.getGateOperations().admit(QUEUE, holder.lease(), gates, Duration.ofMillis(200)))
			.isZero();
		assertThat(enqueueAndDefer("w1", gates)).isEqualTo(GateOperations.PARKED);
		assertThat(enqueueAndDefer("w2", gates)).isEqualTo(GateOperations.PARKED);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			this.listener.migrate(QUEUE);
			assertThat(this.operations.status(QUEUE, "w1").state()).isEqualTo(JobStatus.State.READY);
		});
		assertThat(this.operations.status(QUEUE, "w2")).extracting(JobStatus::state, JobStatus::at)
			.as("still parked, at no time")
			.containsExactly(JobStatus.State.DELAYED, null);
		assertThat(admit(reserveOne(), gates)).isZero();
	}

	@Test
	void aParkedJobCancelledOrRescheduledLeavesItsLine() {
		Gates gates = new Gates("k", "test", 0, 0, null);
		ReservedJob holder = enqueueAndAdmit("holder", gates);
		enqueueAndDefer("cancelled", gates);
		enqueueAndDefer("rescheduled", gates);
		enqueueAndDefer("next", gates);
		assertThat(this.operations.cancel(QUEUE, "cancelled")).isTrue();
		Instant later = Instant.now().plusSeconds(3600);
		assertThat(this.operations.reschedule(QUEUE, "rescheduled", Due.at(later))).isTrue();
		assertThat(this.template.opsForZSet().zCard(this.keys.lines())).isOne();
		this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), gates, Duration.ZERO, 0);
		ReservedJob next = reserveOne();
		assertThat(next.id()).isEqualTo("next");
		assertThat(admit(next, gates)).isZero();
		assertThat(this.operations.status(QUEUE, "rescheduled").at()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).as("nothing left of the lines")
			.doesNotContain(this.keys.lines(), this.keys.parked());
	}

	@Test
	void aGroupsRunningLimitDefersItsNextJobUntilARunLeavesWhileAnotherGroupsJobIsAdmitted() {
		Gates acme = new Gates(null, "test", 0, 0, null, "acme", 1);
		ReservedJob first = enqueueAndAdmit("a1", acme);
		assertThat(enqueueAndDefer("a2", acme)).as("the group's one place is taken").isEqualTo(GateOperations.PARKED);
		enqueueAndAdmit("g1", new Gates(null, "test", 0, 0, null, "globex", 1));
		this.listener.getGateOperations().leaveGates(QUEUE, first.lease(), acme, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).as("the group's waiting job is ready once a run of it left")
			.isEqualTo(new QueueStats(1, 0, 2, 0));
		assertThat(admit(reserveOne(), acme)).isZero();
	}

	@Test
	void runningSetsExpireWithTheLongestLeaseTheyCountSoThatACrashedHoldersEntryGoes() {
		Gates gates = new Gates(null, "test", 1, 1, null);
		ReservedJob job = enqueueAndAdmit("running", gates);
		List<String> runningSets = this.keys.gates(gates).subList(2, 4);
		for (String running : runningSets) {
			assertThat(this.template.getExpire(running, TimeUnit.MILLISECONDS)).isBetween(1L,
					Duration.ofMinutes(1).toMillis());
		}
		this.listener.getGateOperations().holdGates(QUEUE, job.lease(), gates, Duration.ofMinutes(10));
		for (String running : runningSets) {
			assertThat(this.template.getExpire(running, TimeUnit.MILLISECONDS))
				.isGreaterThan(Duration.ofMinutes(9).toMillis());
		}
	}

	@Test
	void failRetriesAfterTheDelayOrBuriesWithTheError() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob first = reserveOne();
		assertThat(
				this.listener.getLeaseOperations().fail(QUEUE, first.lease(), "first failure", Duration.ofMillis(200)))
			.isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		double due = this.template.opsForZSet().score(this.keys.delayed(), "a");
		assertThat(due - this.listener.migrate(QUEUE).redisTime()).isBetween(1.0, 200.0);
		await().atMost(Duration.ofSeconds(2)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		ReservedJob second = reserveOne();
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, second.lease(), "second failure", null)).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a")).isEqualTo("second failure");
		assertThat(this.template.opsForHash().get(this.keys.attempts(), "a")).isEqualTo("2");
	}

	@Test
	void deadJobsAreTrimmedToTheMaximumSizeWithAllTheirData() {
		this.operations.setDeadLetterMaxSize(2);
		for (int i = 0; i < 4; i++) {
			enqueue("d" + i, Due.NOW, DuplicatePolicy.KEEP, "x");
			this.listener.getLeaseOperations().fail(QUEUE, reserveOne().lease(), "dead " + i, null);
		}
		assertThat(this.template.opsForZSet().range(this.keys.dead(), 0, -1)).containsExactlyInAnyOrder("d2", "d3");
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactlyInAnyOrder("d2", "d3");
		assertThat(this.template.opsForHash().keys(this.keys.errors())).containsExactlyInAnyOrder("d2", "d3");
		assertThat(this.template.opsForHash().keys(this.keys.attempts())).containsExactlyInAnyOrder("d2", "d3");
	}

	@Test
	void releaseHandsJobsBackAtTheHeadOptionallyUndoingTheAttempt() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		enqueue("b", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob a = reserveOne();
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(a.lease()), true)).isEqualTo(1);
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(a.lease()), true)).isZero();
		ReservedJob again = reserveOne();
		assertThat(again.id()).isEqualTo("a");
		assertThat(again.attempt()).isEqualTo(1);
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(again.lease()), false)).isEqualTo(1);
		assertThat(reserveOne().attempt()).isEqualTo(2);
	}

	@Test
	void aRunningJobHandedBackOnItsLastAttemptDiesInsteadOfRunningPastItsLimit() {
		// maxAttempts 2: interrupted at shutdown on the second attempt
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(reserveOne().lease()), false))
			.isEqualTo(1);
		ReservedJob last = reserveOne();
		assertThat(last.attempt()).isEqualTo(2);
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(last.lease()), false))
			.as("not handed back")
			.isZero();
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(last.lease()), false)).as("a re-send")
			.isZero();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(this.operations.deadJob(QUEUE, "a").error())
			.isEqualTo("Interrupted on attempt 2, its last: its worker shut down");
	}

	@Test
	void aRepeatedAcknowledgementIsNotReportedAsRefused() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob job = reserveOne();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()))).isEmpty();
		// a client that lost the reply sends the same acknowledgement again
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()))).isEmpty();
	}

	@Test
	void extendNeverShortensALease() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob job = reserveOne();
		double before = this.template.opsForZSet().score(this.keys.reserved(), "a");
		assertThat(confirmStarted(job, Duration.ofSeconds(1))).isEmpty();
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "a")).isEqualTo(before);
		assertThat(confirmStarted(job, Duration.ofMinutes(5))).isEmpty();
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "a")).isGreaterThan(before + 200_000);
	}

	@Test
	void dispatchToReadyWakesOneIdleListener() {
		enqueue("a", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		this.template.delete(this.keys.wake());
		enqueue("b", new Due(false, 120_000), DuplicatePolicy.KEEP, "x");
		assertThat(this.template.hasKey(this.keys.wake())).as("a later delayed job wakes nobody").isFalse();
		enqueue("c", new Due(false, 1_000), DuplicatePolicy.KEEP, "x");
		assertThat(this.template.hasKey(this.keys.wake())).as("a new earliest delayed job wakes a listener").isTrue();
		this.template.delete(this.keys.wake());
		enqueue("d", Due.NOW, DuplicatePolicy.KEEP, "x");
		assertThat(this.template.opsForZSet().size(this.keys.wake())).isEqualTo(1);
	}

	@Test
	void replacePayloadKeepsTheDueTime() {
		enqueue("debounced", new Due(false, 60_000), DuplicatePolicy.REPLACE_PAYLOAD, "first");
		double due = this.template.opsForZSet().score(this.keys.delayed(), "debounced");
		assertThat(enqueue("debounced", new Due(false, 120_000), DuplicatePolicy.REPLACE_PAYLOAD, "second"))
			.isEqualTo(Outcome.REPLACED);
		assertThat(this.template.opsForZSet().score(this.keys.delayed(), "debounced")).isEqualTo(due);
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "debounced"))
			.contains("\"availableAt\":" + (long) due)
			.contains("\"payload\":\"second\"");
	}

	@Test
	void dispatchWhileRunningIsDroppedUntilCompletedOrQueuedUntilStarted() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		ReservedJob running = reserveOne();
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE, "dropped")).isEqualTo(Outcome.DROPPED);
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, "queued"))
			.isEqualTo(Outcome.QUEUED);
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, "kept out"))
			.isEqualTo(Outcome.KEPT);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()))).isEmpty();
		ReservedJob successor = reserveOne();
		assertThat(successor.id()).isEqualTo("a");
		assertThat(successor.attempt()).isEqualTo(1);
		assertThat(successor.envelope()).contains("\"payload\":\"queued\"");
		assertThat(this.template.hasKey(this.keys.successors())).isFalse();
	}

	@Test
	void queuedSuccessorTakesOverTheIdOfAJobThatDies() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		ReservedJob running = reserveOne();
		enqueue("a", new Due(false, 60_000), DuplicatePolicy.REPLACE, Uniqueness.UNTIL_STARTED, "next");
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, running.lease(), "boom", null)).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a")).isNull();
	}

	@Test
	void cancelRemovesTheSuccessorQueuedBehindARunningJob() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		ReservedJob running = reserveOne();
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, "next");
		assertThat(this.operations.cancel(QUEUE, "a")).isTrue();
		assertThat(this.operations.cancel(QUEUE, "a")).isFalse();
		this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void cancelOfAJobWaitingForItsRetryAlsoRemovesItsSuccessor() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		ReservedJob running = reserveOne();
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, "next");
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, running.lease(), "boom", Duration.ofMinutes(1)))
			.isTrue();
		assertThat(this.operations.cancel(QUEUE, "a")).isTrue();
		assertThat(this.template.hasKey(this.keys.successors())).isFalse();
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "after the cancel")).isEqualTo(Outcome.CREATED);
	}

	@Test
	void aPendingJobReplacedAfterAFailedRunStartsAfreshWithoutItsOlderSuccessor() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		ReservedJob running = reserveOne();
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, Uniqueness.UNTIL_STARTED, "second"))
			.isEqualTo(Outcome.QUEUED);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, running.lease(), "boom", Duration.ZERO)).isTrue();
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, Uniqueness.UNTIL_STARTED, "third"))
			.isEqualTo(Outcome.REPLACED);
		ReservedJob replaced = reserveOne();
		assertThat(replaced.envelope()).contains("\"payload\":\"third\"");
		assertThat(replaced.attempt()).isEqualTo(1);
		assertThat(this.template.opsForHash().get(this.keys.errors(), "a")).isNull();
		this.listener.getLeaseOperations().ack(QUEUE, List.of(replaced.lease()));
		assertThat(this.operations.stats(QUEUE)).as("the older second payload does not run after the third")
			.isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void dueTimesUpToTheYear9999AreStoredAsDigits() {
		Instant last = Instant.parse("9999-12-31T23:59:59.999Z");
		enqueue("far", Due.at(last), DuplicatePolicy.KEEP, "x");
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "far"))
			.contains("\"availableAt\":" + last.toEpochMilli() + ",");
		assertThat(this.operations.reschedule(QUEUE, "far", Due.NOW)).isTrue();
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "far"))
			.matches(".*\"availableAt\":\\d+,.*");
		ReservedJob running = reserveOne();
		enqueue("far", Due.at(last), DuplicatePolicy.REPLACE, Uniqueness.UNTIL_STARTED, "successor");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()))).isEmpty();
		assertThat(this.operations.status(QUEUE, "far").at()).isEqualTo(last);
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "far"))
			.contains("\"availableAt\":" + last.toEpochMilli() + ",");
	}

	@Test
	void aRunHandedBackWhileItsHandlerRunsKeepsItsGatesFromTheNextRunOfTheSameJob() {
		Gates gates = new Gates("account-1", "ship", 1, 0, null);
		ReservedJob first = enqueueAndAdmit("a", gates);
		// a stopping instance hands the job back while its handler still runs
		this.listener.getLeaseOperations().release(QUEUE, List.of(first.lease()), false);
		ReservedJob second = reserveOne();
		assertThat(admit(second, gates)).as("the second run waits for the first one's exclusive key and running place")
			.isEqualTo(GateOperations.PARKED);
		this.listener.getGateOperations().leaveGates(QUEUE, first.lease(), gates, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).as("the first run left: the waiting job is ready at once")
			.isEqualTo(new QueueStats(1, 0, 0, 0));
		ReservedJob third = reserveOne();
		assertThat(admit(third, gates)).isZero();
		this.listener.getGateOperations().leaveGates(QUEUE, second.lease(), gates, Duration.ZERO, 0);
		assertThat(this.template.opsForValue().get(this.keys.gates(gates).get(1)))
			.as("a run that never passed the gates does not free the key another run holds")
			.isEqualTo("a:" + third.token());
	}

	@Test
	void aWaitingJobRescheduledLaterIsNotWokenEarlyByTheGateItWaitedFor() {
		Gates gates = new Gates("auction-42", "close-auction", 0, 0, null);
		ReservedJob holder = enqueueAndAdmit("holder", gates);
		enqueue("timer", Due.NOW, DuplicatePolicy.KEEP, "y");
		assertThat(admit(reserveOne(), gates)).isEqualTo(GateOperations.PARKED);
		Instant later = Instant.now().plusSeconds(3600);
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.at(later))).isTrue();
		this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), gates, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 1, 0));
		assertThat(this.operations.status(QUEUE, "timer").at()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
	}

	@Test
	void aRateLimitStartsNoMoreJobsThanItsPermitsWithinAnyWindowNoneBeforeItsPlaceAndEveryJobInTheEnd() {
		Duration window = Duration.ofMillis(500);
		Gates gates = new Gates(null, "send-sms", 0, 0, new RateLimit(2, window));
		List<String> ids = List.of("a", "b", "c", "d", "e", "f", "g");
		ids.forEach((id) -> enqueue(id, Due.NOW, DuplicatePolicy.KEEP, "x"));
		Map<String, Long> starts = new ConcurrentHashMap<>();
		Map<String, Long> places = new ConcurrentHashMap<>();
		// times on Redis' clock, as the script reads them: no client latency in them
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			this.listener.migrate(QUEUE);
			for (ReservedJob job : this.listener.reserve(QUEUE, ids.size(), Duration.ofSeconds(30)).jobs()) {
				long wait = admit(job, gates);
				if (wait == 0) {
					starts.put(job.id(), startOf(job));
				}
				else {
					assertThat(wait).as("deferred by the rate limit, never parked or lost").isPositive();
					places.put(job.id(), placeOf(job.id(), gates));
				}
			}
			return starts.size() == ids.size();
		});
		List<Long> times = starts.values().stream().sorted().toList();
		for (int i = 2; i < times.size(); i++) {
			assertThat(times.get(i) - times.get(i - 2)).as("at most 2 starts within any window, starts %s", times)
				.isGreaterThanOrEqualTo(window.toMillis());
		}
		assertThat(places).as("the limit deferred jobs").isNotEmpty();
		places.forEach((id, place) -> assertThat(starts.get(id)).as("%s started at or after its last place", id)
			.isGreaterThanOrEqualTo(place));
	}

	@Test
	void jobsDeferredByARateLimitAreGivenPlacesAWindowApartAndNewJobsLineUpBehindThem() {
		// a window long enough that no place is ever now + 1 on a slow machine: the
		// places follow from the starts alone
		long window = Duration.ofMinutes(1).toMillis();
		Gates gates = new Gates(null, "send-sms", 0, 0, new RateLimit(2, Duration.ofMillis(window)));
		long a = startOf(enqueueAndAdmit("a", gates));
		long b = startOf(enqueueAndAdmit("b", gates));
		for (String id : List.of("c", "d", "e", "f")) {
			assertThat(enqueueAndDefer(id, gates)).isPositive();
		}
		long e = placeOf("e", gates);
		// c and d take the places a and b leave, e and f the places c and d leave,
		// instead of all four coming back when a leaves the window
		assertThat(placeOf("c", gates)).isEqualTo(a + window);
		assertThat(placeOf("d", gates)).isEqualTo(b + window);
		assertThat(e).isEqualTo(a + 2 * window);
		assertThat(placeOf("f", gates)).isEqualTo(b + 2 * window);
		assertThat(this.operations.reschedule(QUEUE, "e", Due.NOW)).isTrue();
		assertThat(admit(reserveOne(), gates)).as("triggered early, e is deferred again").isPositive();
		assertThat(placeOf("e", gates)).as("and keeps its place").isEqualTo(e);
		assertThat(this.operations.status(QUEUE, "e").at()).isEqualTo(Instant.ofEpochMilli(e));
		assertThat(enqueueAndDefer("g", gates)).isPositive();
		assertThat(placeOf("g", gates)).as("a new job lines up a window behind e").isEqualTo(e + window);
	}

	// when a run started, on Redis' clock: its admit gave it the full lease from then
	private long startOf(ReservedJob job) {
		return this.template.opsForZSet().score(this.keys.reserved(), job.id()).longValue() - ADMIT_LEASE.toMillis();
	}

	// the place the rate limit gave a deferred job, on Redis' clock
	private long placeOf(String id, Gates gates) {
		return this.template.opsForZSet().score(this.keys.gates(gates).get(5), id).longValue();
	}

	@Test
	void aRateLimitedJobBackMoreThanAWindowAfterItsPlaceIsNotSentBehindTheJobsStillWaiting() {
		Gates gates = new Gates(null, "send-sms", 0, 0, new RateLimit(1, Duration.ofMillis(300)));
		enqueueAndAdmit("a", gates);
		for (String id : List.of("b", "c", "d", "e", "f")) {
			enqueueAndDefer(id, gates);
		}
		// b and c are due once c's place has come: b is then a window late (behind a
		// backlog, say) while d, e and f wait for places still to come
		await().atMost(Duration.ofSeconds(3)).until(() -> {
			this.listener.migrate(QUEUE);
			return this.operations.stats(QUEUE).ready() == 2;
		});
		assertThat(admit(reserveOne(), gates)).isZero();
	}

	@Test
	void aReSentAdmitOfAnAdmittedRunAdmitsItAgainWithoutCountingItsStartTwice() {
		// as when Lettuce re-sends an admit whose reply was lost: the second run must
		// change nothing
		Gates gates = new Gates("account-1", "send-sms", 1, 1, new RateLimit(1, Duration.ofSeconds(10)));
		ReservedJob job = enqueueAndAdmit("a", gates);
		long start = startOf(job);
		String rate = this.keys.gates(gates).get(4);
		assertThat(admit(job, gates)).as("the re-send").isZero();
		assertThat(this.template.opsForZSet().zCard(rate)).as("one start in the window").isEqualTo(1);
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.RESERVED);
		this.listener.getGateOperations().leaveGates(QUEUE, job.lease(), gates, Duration.ZERO, 0);
		this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()));
		assertThat(enqueueAndDefer("b", gates)).isPositive();
		assertThat(placeOf("b", gates)).as("the next job waits for the one start's window only")
			.isEqualTo(start + 10_000);
	}

	@Test
	void thePlaceOfACancelledJobDoesNotHoldUpTheNextOne() {
		Gates gates = new Gates(null, "send-sms", 0, 0, new RateLimit(1, Duration.ofMinutes(1)));
		long a = startOf(enqueueAndAdmit("a", gates));
		assertThat(enqueueAndDefer("b", gates)).isPositive();
		assertThat(placeOf("b", gates)).isEqualTo(a + 60_000);
		assertThat(this.operations.cancel(QUEUE, "b")).isTrue();
		assertThat(enqueueAndDefer("c", gates)).isPositive();
		assertThat(placeOf("c", gates)).as("c takes the place b left").isEqualTo(a + 60_000);
	}

	@Test
	void rescheduleMovesPendingJobsOnly() {
		enqueue("timer", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		Instant later = Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.MILLIS);
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.at(later))).isTrue();
		assertThat(this.operations.status(QUEUE, "timer").at()).isEqualTo(later);
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "timer"))
			.contains("\"availableAt\":" + later.toEpochMilli());
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.NOW)).isTrue();
		assertThat(this.operations.status(QUEUE, "timer").state()).isEqualTo(JobStatus.State.READY);
		assertThat(this.operations.reschedule(QUEUE, "timer", new Due(false, 60_000))).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.NOW)).isTrue();
		reserveOne();
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.NOW)).isFalse();
		assertThat(this.operations.reschedule(QUEUE, "unknown", Due.NOW)).isFalse();
	}

	@Test
	void triggerMakesADelayedJobReadyAndLeavesAReadyJobInItsPlace() {
		enqueue("timer", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		enqueue("first", Due.NOW, DuplicatePolicy.KEEP, "x");
		assertThat(this.operations.trigger(QUEUE, "timer")).isTrue();
		assertThat(this.operations.trigger(QUEUE, "first")).as("ready already").isFalse();
		assertThat(this.operations.reschedule(QUEUE, "first", Due.NOW)).as("pending").isTrue();
		assertThat(this.operations.trigger(QUEUE, "unknown")).isFalse();
		assertThat(this.template.opsForList().range(this.keys.ready(), 0, -1))
			.as("a job due already is not sent to the back of the line")
			.containsExactly("first", "timer");
	}

	@Test
	void cancelRescheduleAndReplaceOfAReadyJobSearchNoListAndEachJobRunsOnceWithItsLatestPayload() {
		for (String id : List.of("cancelled", "rescheduled", "replaced", "kept")) {
			enqueue(id, Due.NOW, DuplicatePolicy.KEEP, "first");
		}
		Map<String, Long> commands = ScriptExecutions.commandsOf(this.redis, () -> {
			assertThat(this.operations.cancel(QUEUE, "cancelled")).isTrue();
			assertThat(this.operations.reschedule(QUEUE, "rescheduled", new Due(false, 60_000))).isTrue();
			assertThat(enqueue("replaced", Due.NOW, DuplicatePolicy.REPLACE, "second")).isEqualTo(Outcome.REPLACED);
		});
		assertThat(commands).as("no command that searches the ready list").doesNotContainKeys("lrem", "lpos");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(2, 1, 0, 0));
		assertThat(this.operations.status(QUEUE, "cancelled").state()).isEqualTo(JobStatus.State.NONE);
		// the cancelled id is dispatched again, and the rescheduled job comes back at
		// once
		assertThat(enqueue("cancelled", Due.NOW, DuplicatePolicy.KEEP, "second")).isEqualTo(Outcome.CREATED);
		assertThat(this.operations.reschedule(QUEUE, "rescheduled", Due.NOW)).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(4, 0, 0, 0));
		List<ReservedJob> reserved = new ArrayList<>();
		while (reserved.size() < 4) {
			reserved.addAll(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs());
		}
		assertThat(reserved)
			.extracting(ReservedJob::id, (job) -> job.envelope().substring(job.envelope().indexOf("\"payload\"")))
			.containsExactly(tuple("kept", "\"payload\":\"first\"}"), tuple("replaced", "\"payload\":\"second\"}"),
					tuple("cancelled", "\"payload\":\"second\"}"), tuple("rescheduled", "\"payload\":\"first\"}"));
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 4, 0));
		assertThat(this.template.hasKey(this.keys.ready())).isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).as("no stale entry is left").isFalse();
	}

	@Test
	void aDebouncedDispatchQueuedBehindARunningJobKeepsTheDueTimeOfTheFirstEdit() {
		enqueue("index", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, Uniqueness.UNTIL_STARTED, "first");
		ReservedJob running = reserveOne();
		assertThat(enqueue("index", new Due(false, 10_000), DuplicatePolicy.REPLACE_PAYLOAD, Uniqueness.UNTIL_STARTED,
				"second"))
			.isEqualTo(Outcome.QUEUED);
		String queued = (String) this.template.opsForHash().get(this.keys.successors(), "index");
		assertThat(enqueue("index", new Due(false, 60_000), DuplicatePolicy.REPLACE_PAYLOAD, Uniqueness.UNTIL_STARTED,
				"third"))
			.isEqualTo(Outcome.QUEUED);
		String edited = (String) this.template.opsForHash().get(this.keys.successors(), "index");
		assertThat(edited).as("the last payload, the first edit's due time")
			.isEqualTo(queued.substring(0, queued.indexOf(':') + 1) + body("third"));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()))).isEmpty();
		JobStatus next = this.operations.status(QUEUE, "index");
		assertThat(Duration.between(next.redisTime(), next.at())).isLessThanOrEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void replacingThePayloadOfAReadyJobKeepsWhenItWasCreatedAndBecameReady() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "first");
		String before = (String) this.template.opsForHash().get(this.keys.jobs(), "a");
		String times = before.substring(0, before.indexOf(",\"job\""));
		long created = Long.parseLong(times.substring(times.indexOf(':') + 1, times.indexOf(',')));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.operations.status(QUEUE, "a").redisTime().toEpochMilli() > created + 1);
		assertThat(enqueue("a", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, "second")).isEqualTo(Outcome.REPLACED);
		assertThat((String) this.template.opsForHash().get(this.keys.jobs(), "a"))
			.isEqualTo(times + "," + body("second"));
	}

	@Test
	void statusTellsWhereAJobIs() {
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.NONE);
		enqueue("a", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		JobStatus delayed = this.operations.status(QUEUE, "a");
		assertThat(delayed.state()).isEqualTo(JobStatus.State.DELAYED);
		assertThat(Duration.between(delayed.redisTime(), delayed.at())).isBetween(Duration.ofSeconds(59),
				Duration.ofSeconds(60));
		this.operations.reschedule(QUEUE, "a", Due.NOW);
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.READY);
		ReservedJob job = reserveOne();
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.RESERVED);
		this.listener.getLeaseOperations().fail(QUEUE, job.lease(), "boom", null);
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.DEAD);
	}

	@Test
	void pausedQueueHandsOutNothingUntilResumed() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		this.operations.pause(QUEUE);
		assertThat(this.operations.isPaused(QUEUE)).isTrue();
		assertThat(this.operations.snapshot(QUEUE).paused()).isTrue();
		assertThat(this.listener.reserve(QUEUE, 10, Duration.ofSeconds(30)).jobs()).isEmpty();
		this.template.delete(this.keys.wake());
		this.operations.resume(QUEUE);
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		assertThat(this.operations.snapshot(QUEUE).paused()).isFalse();
		assertThat(this.template.opsForZSet().size(this.keys.wake())).as("resuming wakes a listener").isEqualTo(1);
		assertThat(reserveOne().id()).isEqualTo("a");
	}

	@Test
	void deadJobsArePagedNewestFirstAndCanBeRetriedOrDeleted() {
		for (int i = 0; i < 5; i++) {
			enqueue("d" + i, Due.NOW, DuplicatePolicy.KEEP, "x");
			this.listener.getLeaseOperations().fail(QUEUE, reserveOne().lease(), "error " + i, null);
		}
		List<DeadJob> page = this.operations.deadJobs(QUEUE, 0, 2);
		assertThat(page).extracting(DeadJob::id).containsExactly("d4", "d3");
		assertThat(page.get(0).error()).isEqualTo("error 4");
		assertThat(page.get(0).attempts()).isEqualTo(1);
		assertThat(page.get(0).envelope()).contains("\"job\":\"test\"");
		assertThat(this.operations.deadJobs(QUEUE, 4, 10)).extracting(DeadJob::id).containsExactly("d0");
		assertThatIllegalArgumentException().isThrownBy(() -> this.operations.deadJobs(QUEUE, 0, 0));
		assertThat(this.operations.deadJob(QUEUE, "d4")).isEqualTo(page.get(0));
		assertThat(this.operations.deadJob(QUEUE, "nope")).isNull();
		assertThat(this.operations.retryDead(QUEUE, List.of("d4", "nope"))).isEqualTo(1);
		ReservedJob retried = reserveOne();
		assertThat(retried.id()).isEqualTo("d4");
		assertThat(retried.attempt()).as("fresh attempts").isEqualTo(1);
		assertThat(this.operations.deleteDead(QUEUE, List.of("d3"))).isEqualTo(1);
		assertThat(this.template.opsForHash().hasKey(this.keys.jobs(), "d3")).isFalse();
		assertThat(this.operations.retryDead(QUEUE, List.of())).isEqualTo(3);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 0, 1, 0));
	}

	@Test
	void purgeDeletesEveryJobOfTheQueue() {
		enqueue("a", Due.NOW, DuplicatePolicy.KEEP, "x");
		enqueue("b", new Due(false, 60_000), DuplicatePolicy.KEEP, "x");
		ReservedJob running = reserveOne();
		this.operations.pause(QUEUE);
		this.operations.purge(QUEUE);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.operations.isPaused(QUEUE)).as("still paused").isTrue();
		assertThat(this.template.opsForValue().get(this.keys.sequence())).as("lease tokens go on").isNotNull();
		// the running job's acknowledgement finds nothing left to complete
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()))).isEmpty();
		assertThat(this.template.keys("redq:*")).doesNotContain(this.keys.jobs(), this.keys.reserved());
	}

	@Test
	void cancelAndPurgeDeleteTheProgressOfTheJobsTheyRemove() {
		for (String id : List.of("cancelled", "purged", "running")) {
			enqueue(id, Due.NOW, DuplicatePolicy.KEEP, "x");
			ReservedJob run = reserveOne();
			assertThat(this.listener.getProgressOperations()
				.writeProgress(QUEUE, run.lease(), JobEnvelope.read(run.envelope()).createdAt(),
						Map.of(ProgressFields.CURSOR, "7")))
				.isTrue();
			if (!id.equals("running")) {
				// waits for its retry, with the progress of its first attempt
				assertThat(this.listener.getLeaseOperations().fail(QUEUE, run.lease(), "boom", Duration.ofMinutes(1)))
					.isTrue();
			}
		}
		assertThat(enqueue("running", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, "next"))
			.isEqualTo(Outcome.QUEUED);
		assertThat(this.operations.cancel(QUEUE, "running")).as("the successor behind it").isTrue();
		assertThat(this.template.hasKey(this.keys.progress("running"))).as("the running job's own").isTrue();
		assertThat(this.operations.cancel(QUEUE, "cancelled")).isTrue();
		assertThat(this.template.hasKey(this.keys.progress("cancelled"))).isFalse();
		assertThat(this.template.hasKey(this.keys.progress("purged"))).isTrue();
		this.operations.purge(QUEUE);
		assertThat(this.template.hasKey(this.keys.progress("purged"))).isFalse();
		assertThat(this.template.hasKey(this.keys.progress("running"))).isFalse();
	}

	@Test
	void purgeDeletesTheGatesAndRecurringStateOfTheQueueButKeepsItsPauses() {
		Gates gates = new Gates("account-1", "ship", 1, 1, new RateLimit(5, Duration.ofMinutes(1)));
		ReservedJob running = enqueueAndAdmit("a", gates);
		assertThat(enqueueAndDefer("b", gates)).as("waits for the exclusive key").isEqualTo(GateOperations.PARKED);
		this.template.opsForHash().put(this.keys.recurring("nightly"), "last", "1");
		this.template.opsForHash().put(this.keys.recurring("weekly"), "last", "1");
		this.template.opsForHash().put(this.keys.recurring("weekly"), "paused", "1");
		// a queue whose name, taken as a pattern, matches this queue's name
		String pattern = QUEUE.charAt(0) + "*";
		this.enqueuer.enqueue(pattern, List.of(command("other", DuplicatePolicy.KEEP, "x")));
		this.operations.purge(pattern);
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).as("a queue name is no pattern")
			.contains(this.keys.jobs());
		this.operations.purge(QUEUE);
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).as("besides the replies kept for re-sent calls")
			.filteredOn((key) -> !this.keys.isSent(key))
			.containsExactlyInAnyOrder(this.keys.sequence(), this.keys.model(), this.keys.recurring("weekly"),
					this.keys.holding(), this.keys.held());
		// the hold of the run still going on stays until it leaves
		assertThat(this.listener.getGateOperations().leaveGates(QUEUE, running.lease(), gates, Duration.ZERO, 0))
			.isNull();
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).filteredOn((key) -> !this.keys.isSent(key))
			.containsExactlyInAnyOrder(this.keys.sequence(), this.keys.model(), this.keys.recurring("weekly"));
		assertThat(this.template.opsForHash().entries(this.keys.recurring("weekly")))
			.as("a paused recurring job stays paused")
			.containsOnlyKeys("paused");
	}

	@Test
	void retryingEveryDeadJobRetriesThoseThatWereDeadWhenItBeganOnceWhileFailingWorkersKillThemAgain()
			throws Exception {
		int jobs = 2500;
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			commands.add(new EnqueueCommand("j" + i, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":1,\"timeout\":0,\"payload\":" + i + "}"));
		}
		this.enqueuer.enqueue(QUEUE, commands);
		Map<String, Integer> runs = new ConcurrentHashMap<>();
		assertThat(failEveryReadyJob(runs)).isEqualTo(jobs);
		runs.clear();
		// workers that fail every job they get, while every dead job is retried
		AtomicBoolean retrying = new AtomicBoolean(true);
		Thread workers = new Thread(() -> {
			while (retrying.get()) {
				failEveryReadyJob(runs);
			}
		});
		workers.start();
		long retried;
		try {
			retried = this.operations.retryDead(QUEUE, List.of());
		}
		finally {
			retrying.set(false);
			workers.join();
		}
		failEveryReadyJob(runs);
		assertThat(retried).isEqualTo(jobs);
		assertThat(runs).hasSize(jobs).allSatisfy((id, count) -> assertThat(count).as(id).isOne());
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, jobs));
	}

	/**
	 * Reserve and fail for good every ready job, counting its runs.
	 * @return how many jobs were failed
	 */
	private int failEveryReadyJob(Map<String, Integer> runs) {
		int failed = 0;
		List<ReservedJob> reserved;
		while (!(reserved = this.listener.reserve(QUEUE, 100, Duration.ofSeconds(30)).jobs()).isEmpty()) {
			for (ReservedJob job : reserved) {
				runs.merge(job.id(), 1, Integer::sum);
				this.listener.getLeaseOperations().fail(QUEUE, job.lease(), "boom", null);
				failed++;
			}
		}
		return failed;
	}

	@Test
	void aJobDispatchedWhilePurgesRunIsPurgedWholeOrKeptWhole() throws Exception {
		int threads = 4;
		AtomicBoolean dispatching = new AtomicBoolean(true);
		AtomicInteger calls = new AtomicInteger();
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int producer = t;
			producers.add(new Thread(() -> {
				for (int i = 0; dispatching.get(); i++) {
					Due due = (i % 3 == 0) ? new Due(false, 3_600_000) : Due.NOW;
					this.enqueuer.enqueue(QUEUE,
							List.of(new EnqueueCommand("j" + (i % 50), due, DuplicatePolicy.KEEP, body(producer)),
									EnqueueCommand.withGeneratedId("g" + producer + "-" + i, Due.NOW, body(i))));
					calls.incrementAndGet();
				}
			}));
		}
		producers.forEach(Thread::start);
		try {
			// purges far enough apart that each finds the keys of many calls (the reply
			// of
			// each was kept under a key of its own before the lanes)
			for (int i = 0; i < 20; i++) {
				int before = calls.get();
				await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() >= before + 1500);
				this.operations.purge(QUEUE);
			}
		}
		finally {
			dispatching.set(false);
			for (Thread producer : producers) {
				producer.join();
			}
		}
		List<String> ready = this.template.opsForList().range(this.keys.ready(), 0, -1);
		Set<String> delayed = this.template.opsForZSet().range(this.keys.delayed(), 0, -1);
		Set<Object> stored = this.template.opsForHash().keys(this.keys.jobs());
		assertThat(ready).as("no id twice in ready").doesNotHaveDuplicates();
		assertThat(ready).as("no id ready without data").allSatisfy((id) -> assertThat(stored).contains(id));
		assertThat(delayed).as("no id delayed without data").allSatisfy((id) -> assertThat(stored).contains(id));
		Set<Object> placed = new HashSet<>(ready);
		placed.addAll(delayed);
		assertThat(placed).as("no job with data in no set").containsExactlyInAnyOrderElementsOf(stored);
		Reservation reservation = this.listener.reserve(QUEUE, 1000, Duration.ofSeconds(30));
		assertThat(reservation.missing()).as("no phantom dead job").isEmpty();
		assertThat(this.operations.stats(QUEUE).dead()).isZero();
	}

	@Test
	void anEnqueueOfMoreJobsThanOneScriptCallTakesStoresEveryJob() {
		enqueue("j0", new Due(false, 60_000), DuplicatePolicy.KEEP, "old");
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i < 4100; i++) {
			commands.add(command("j" + i, DuplicatePolicy.REPLACE, "new"));
		}
		List<DispatchResult> results = this.enqueuer.enqueue(QUEUE, commands);
		assertThat(results).hasSize(4100).first().extracting(DispatchResult::outcome).isEqualTo(Outcome.REPLACED);
		assertThat(results.subList(1, 4100)).extracting(DispatchResult::outcome).containsOnly(Outcome.CREATED);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(4100, 0, 0, 0));
		assertThat(this.template.opsForList().indexOf(this.keys.ready(), "j0")).isNotNull();
		assertThat(this.template.opsForHash().size(this.keys.jobs())).isEqualTo(4100);
	}

	@Test
	void reservingMoreJobsThanOneScriptCallTakesLosesNone() {
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i < 5000; i++) {
			commands.add(command("j" + i, DuplicatePolicy.KEEP, "x"));
			if (commands.size() == 1000) {
				this.enqueuer.enqueue(QUEUE, commands);
				commands.clear();
			}
		}
		Set<String> reserved = new HashSet<>();
		List<Lease> leases = new ArrayList<>();
		List<ReservedJob> jobs;
		do {
			jobs = this.listener.reserve(QUEUE, 5000, Duration.ofMinutes(1)).jobs();
			for (ReservedJob job : jobs) {
				reserved.add(job.id());
				leases.add(job.lease());
			}
		}
		while (!jobs.isEmpty());
		assertThat(reserved).hasSize(5000);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 5000, 0));
		this.operations.setCompletedMaxSize(5000);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, leases)).as("every lease is still held").isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.operations.completedJobs(QUEUE, 5000)).hasSize(5000);
		assertThat(this.template.opsForHash().size(this.keys.jobs())).isZero();
	}

	@Test
	void aLeaseExpiryReadsMaxAttemptsAsJsonAndAMissingOneAsASingleAttempt() {
		this.enqueuer.enqueue(QUEUE,
				List.of(new EnqueueCommand("spaced", Due.NOW, DuplicatePolicy.KEEP,
						"\"job\":\"test\",\"maxAttempts\": 3,\"timeout\":0,\"payload\":\"x\"}"),
						new EnqueueCommand("nested", Due.NOW, DuplicatePolicy.KEEP,
								"\"job\":\"test\",\"timeout\":0,\"payload\":{\"maxAttempts\":5}}")));
		assertThat(this.listener.reserve(QUEUE, 2, Duration.ofMillis(20)).jobs()).hasSize(2);
		AtomicInteger expired = new AtomicInteger();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> expired.addAndGet(this.listener.migrate(QUEUE, 0).expiredLeases()) == 2);
		assertThat(this.operations.status(QUEUE, "spaced").state()).as("two attempts left")
			.isEqualTo(JobStatus.State.READY);
		assertThat(this.operations.status(QUEUE, "nested").state()).as("no maxAttempts of its own")
			.isEqualTo(JobStatus.State.DEAD);
	}

	/**
	 * Reserve jobs from a queue that has that many ready.
	 * @return the Redis commands the reservation ran, by name
	 */
	private Map<String, Long> reserveCommands(int jobs) {
		return ScriptExecutions.commandsOf(this.redis,
				() -> assertThat(this.listener.reserve(QUEUE, jobs, Duration.ofSeconds(30)).jobs()).hasSize(jobs));
	}

	private ReservedJob enqueueAndAdmit(String id, Gates gates) {
		enqueue(id, Due.NOW, DuplicatePolicy.KEEP, "x");
		ReservedJob job = reserveOne();
		assertThat(admit(job, gates)).isZero();
		return job;
	}

	private long enqueueAndDefer(String id, Gates gates) {
		enqueue(id, Due.NOW, DuplicatePolicy.KEEP, "x");
		return admit(reserveOne(), gates);
	}

	private long admit(ReservedJob job, Gates gates) {
		return this.listener.getGateOperations().admit(QUEUE, job.lease(), gates, ADMIT_LEASE);
	}

	/**
	 * Renew a job's lease as its container does once its run started.
	 * @return the tokens of the leases no longer held
	 */
	private List<String> confirmStarted(ReservedJob job, Duration lease) {
		return this.listener.getLeaseOperations().extend(QUEUE, List.of(job.lease()), List.of(), lease, lease);
	}

	private ReservedJob reserveOne() {
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 1, Duration.ofSeconds(30)).jobs();
		assertThat(jobs).hasSize(1);
		return jobs.get(0);
	}

	private static EnqueueCommand command(String id, DuplicatePolicy policy, String payload) {
		return new EnqueueCommand(id, Due.NOW, policy, body(payload));
	}

	private static String body(Object payload) {
		return "\"job\":\"test\",\"maxAttempts\":2,\"timeout\":0,\"payload\":"
				+ (payload instanceof String ? "\"" + payload + "\"" : payload) + "}";
	}

	private void enqueueInGroup(String id, String levelAndGroup) {
		this.enqueuer.enqueue(QUEUE,
				List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, levelAndGroup + body("x"))));
	}

	private Outcome enqueue(String id, Due due, DuplicatePolicy policy, Object payload) {
		return enqueue(id, due, policy, Uniqueness.UNTIL_COMPLETED, payload);
	}

	private Outcome enqueue(String id, Due due, DuplicatePolicy policy, Uniqueness uniqueness, Object payload) {
		return this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, due, policy, uniqueness, body(payload))))
			.get(0)
			.outcome();
	}

}
