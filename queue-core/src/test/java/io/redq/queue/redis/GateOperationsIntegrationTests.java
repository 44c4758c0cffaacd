package io.redq.queue.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.RateLimit;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link GateOperations} against a real Redis.
 *
 * @author Redq team
 */
class GateOperationsIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	/** One job "test" runs at a time. */
	private static final Gates GATES = new Gates(null, "test", 1, 0, null);

	private GateOperations gates() {
		return this.listener.getGateOperations();
	}

	@Test // GH-36
	void aCompletionThatLeavesItsGatesAcknowledgesTheRunAndLetsTheNextInLineThroughAndChangesNothingWhenReSent() {
		enqueue("a");
		enqueue("b");
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 2, LEASE).jobs();
		assertThat(gates().admit(QUEUE, jobs.get(0).lease(), GATES, LEASE)).isZero();
		assertThat(gates().admit(QUEUE, jobs.get(1).lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		GateOperations.Completion completion = gates().completeAndLeaveGates(QUEUE, jobs.get(0).lease(), GATES, LEASE,
				0);
		assertThat(completion.refused()).isFalse();
		assertThat(completion.next()).isNotNull();
		ReservedJob next = completion.next().job();
		assertThat(next.id()).isEqualTo("b");
		assertThat(completion.next().admitted()).isTrue();
		assertThat(this.template.opsForHash().hasKey(this.keys.jobs(), "a")).as("acknowledged").isFalse();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		String running = this.keys.gates(GATES).get(2);
		assertThat(this.template.opsForZSet().range(running, 0, -1))
			.containsExactly("b:" + ShardNames.inShard(next.lease()).token());
		Map<String, String> before = dump();
		// a client re-sends the call after a lost reply
		GateOperations.Completion again = gates().completeAndLeaveGates(QUEUE, jobs.get(0).lease(), GATES, LEASE, 0);
		assertThat(again.refused()).isFalse();
		assertThat(again.next()).isNull();
		assertThat(dump()).isEqualTo(before);
	}

	@Test // GH-36
	void aJobParkedAtItsAdmissionKeepsNoRecordOfTheRunThatNeverStartedAndThatRunsResultIsRefused() {
		enqueue("a");
		enqueue("b");
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 2, LEASE).jobs();
		assertThat(gates().admit(QUEUE, jobs.get(0).lease(), GATES, LEASE)).isZero();
		assertThat(gates().admit(QUEUE, jobs.get(1).lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		// a backlog parked behind a gate would otherwise keep a record each, deleted as
		// it drains
		assertThat(this.template.hasKey(this.keys.runs())).as("runs").isFalse();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(jobs.get(1).lease()))).containsExactly("b");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 1, 0));
	}

	@Test // GH-36
	void aCompletionRefusedSinceAnotherWorkerReservedTheJobLeavesOnlyItsOwnGatesAndTheJobToThatWorker() {
		enqueue("a");
		Lease stalled = this.listener.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs().get(0).lease();
		assertThat(gates().admit(QUEUE, stalled, GATES, Duration.ofMillis(50))).isZero();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		ReservedJob again = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(gates().admit(QUEUE, again.lease(), GATES, LEASE)).isZero();
		GateOperations.Completion completion = gates().completeAndLeaveGates(QUEUE, stalled, GATES, LEASE, 0);
		assertThat(completion.refused()).isTrue();
		assertThat(completion.next()).isNull();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.template.opsForZSet().range(this.keys.gates(GATES).get(2), 0, -1))
			.containsExactly("a:" + ShardNames.inShard(again.lease()).token());
	}

	@Test // GH-36
	void aDrainBehindALimitOfOneCostsAtMost42RedisCommandsPerJobAndNeverTwoHoldersOfThePlace() {
		int jobs = 40;
		for (int i = 0; i < jobs; i++) {
			enqueue("j" + i);
		}
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, jobs, LEASE).jobs();
		assertThat(gates().admit(QUEUE, reserved.get(0).lease(), GATES, LEASE)).isZero();
		for (ReservedJob job : reserved.subList(1, jobs)) {
			assertThat(gates().admit(QUEUE, job.lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		}
		String running = this.keys.gates(GATES).get(2);
		Lease holder = reserved.get(0).lease();
		long commands = 0;
		for (int i = 1; i <= jobs; i++) {
			long before = commandCalls();
			GateOperations.Completion completion = gates().completeAndLeaveGates(QUEUE, holder, GATES, LEASE, 0);
			// the first call loads the script
			commands += (i > 1) ? commandCalls() - before : 0;
			assertThat(completion.refused()).isFalse();
			if (i == jobs) {
				assertThat(completion.next()).isNull();
				break;
			}
			assertThat(completion.next()).isNotNull();
			assertThat(completion.next().admitted()).isTrue();
			holder = completion.next().job().lease();
			assertThat(this.template.opsForZSet().range(running, 0, -1))
				.containsExactly(holder.id() + ":" + ShardNames.inShard(holder).token());
		}
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.opsForHash().size(this.keys.jobs())).as("jobs left").isZero();
		assertThat(this.template.opsForZSet().zCard(running)).isZero();
		// 55.3 before the leave skipped the gates it never held and its parts shared what
		// they read (41.4 after)
		assertThat(commands / (double) (jobs - 1)).as("Redis commands per job drained").isLessThanOrEqualTo(42);
	}

	@Test // GH-36
	void aLeaveHandsOverARunOfTheJobsNextInLineWithItsGatesThatHoldsOnePlaceUnderItsFirstJob() {
		for (int i = 0; i < 5; i++) {
			enqueue("j" + i);
		}
		enqueue("other", "\"job\":\"other\",\"maxAttempts\":3,\"payload\":\"x\"}");
		enqueue("j5");
		Gates others = new Gates(null, "other", 0, 1, null);
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 7, LEASE).jobs();
		Gates queueLimit = new Gates(null, "test", 0, 1, null);
		assertThat(gates().admit(QUEUE, reserved.get(0).lease(), queueLimit, LEASE)).isZero();
		for (ReservedJob job : reserved.subList(1, 7)) {
			assertThat(gates().admit(QUEUE, job.lease(), job.id().equals("other") ? others : queueLimit, LEASE))
				.isEqualTo(GateOperations.PARKED);
		}
		GateOperations.Completion completion = gates().completeAndLeaveGates(QUEUE, reserved.get(0).lease(), queueLimit,
				LEASE, 3);
		GateOperations.HandOver next = completion.next();
		assertThat(next).isNotNull();
		assertThat(next.admitted()).isTrue();
		assertThat(next.job().id()).isEqualTo("j1");
		// the run ends before the first job with other gates, which keeps its place
		assertThat(next.run()).extracting(ReservedJob::id).containsExactly("j2", "j3", "j4");
		assertThat(next.run()).allSatisfy((job) -> assertThat(job.attempt()).isOne());
		String running = this.keys.gates(queueLimit).get(3);
		String holder = "j1:" + ShardNames.inShard(next.job().lease()).token();
		assertThat(this.template.opsForZSet().range(running, 0, -1)).containsExactly(holder);
		assertThat(this.template.opsForZSet().range(this.keys.holding(), 0, -1)).containsExactly(holder);
		assertThat(this.operations.stats(QUEUE)).as("the run reserved, two parked")
			.isEqualTo(new QueueStats(0, 2, 4, 0));
		assertThat(this.template.opsForZSet().zCard(this.keys.lines())).isEqualTo(2);
		// the jobs of the run are acknowledged by their own leases, and the last leaves
		// the place under the first's
		assertThat(this.listener.getLeaseOperations()
			.ack(QUEUE, List.of(next.job().lease(), next.run().get(0).lease(), next.run().get(1).lease(),
					next.run().get(2).lease())))
			.isEmpty();
		assertThat(this.template.opsForZSet().range(running, 0, -1)).as("held until the run leaves")
			.containsExactly(holder);
		GateOperations.HandOver after = gates().leaveGates(QUEUE, next.job().lease(), queueLimit, LEASE, 3);
		assertThat(after).isNotNull();
		assertThat(after.job().id()).isEqualTo("other");
		assertThat(after.admitted()).isFalse();
		assertThat(after.run()).isEmpty();
		assertThat(this.template.hasKey(running)).isFalse();
		assertThat(this.template.hasKey(this.keys.holding())).isFalse();
	}

	@Test // GH-36
	void aParkedJobWaitsInItsLineAloneAndCountsIsCancelledAndIsRescheduledAsAPendingJob() {
		List<ReservedJob> reserved = admitTheFirstOfFourAndParkTheRest();
		// the delayed set, which every drained job would otherwise enter and leave, holds
		// none of them (data model 7)
		assertThat(this.template.hasKey(this.keys.delayed())).as("delayed").isFalse();
		assertThat(this.template.opsForZSet().zCard(this.keys.lines())).isEqualTo(3);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 3, 1, 0));
		JobStatus parked = this.operations.status(QUEUE, "j2");
		assertThat(parked.state()).isEqualTo(JobStatus.State.DELAYED);
		assertThat(parked.at()).as("parked: no due time").isNull();
		assertThat(this.operations.cancel(QUEUE, "j1")).isTrue();
		assertThat(this.operations.reschedule(QUEUE, "j2", Due.after(Duration.ofMinutes(1)))).isTrue();
		assertThat(this.template.opsForZSet().score(this.keys.delayed(), "j2")).isNotNull();
		assertThat(this.template.opsForZSet().range(this.keys.lines(), 0, -1)).as("j3 waits alone")
			.singleElement()
			.satisfies((entry) -> assertThat(entry).endsWith("\0j3"));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 2, 1, 0));
		GateOperations.HandOver next = gates().completeAndLeaveGates(QUEUE, reserved.get(0).lease(), GATES, LEASE, 5)
			.next();
		assertThat(next).isNotNull();
		assertThat(next.job().id()).isEqualTo("j3");
		assertThat(next.run()).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 1, 0));
		assertThat(this.template.hasKey(this.keys.lines())).isFalse();
	}

	@Test // GH-36
	void aJobWokenForAPlaceThatIsRescheduledBeforeItsAdmissionPassesThePlaceToTheNextInLine() {
		wakeTheSecondOfThreeJobsBehindALimitOfOne();
		// a, which left its gates, is still reserved until acknowledged
		assertThat(this.operations.stats(QUEUE)).as("b woken, c parked").isEqualTo(new QueueStats(1, 1, 1, 0));
		assertThat(this.operations.reschedule(QUEUE, "b", Due.after(Duration.ofHours(1)))).isTrue();
		assertThat(this.operations.stats(QUEUE)).as("c woken for the place b left, b delayed")
			.isEqualTo(new QueueStats(1, 1, 1, 0));
		assertThat(this.template.opsForZSet().score(this.keys.delayed(), "b")).isNotNull();
		List<ReservedJob> next = this.listener.reserve(QUEUE, 1, LEASE).jobs();
		assertThat(next).extracting(ReservedJob::id).containsExactly("c");
		assertThat(gates().admit(QUEUE, next.get(0).lease(), GATES, LEASE)).isZero();
	}

	@Test // GH-36
	void aJobWokenForAPlaceThatTheRateLimitDefersPassesThePlaceToTheNextInLine() {
		Gates gates = new Gates(null, "test", 1, 0, new RateLimit(1, Duration.ofMinutes(1)));
		wakeTheSecondOfThreeJobsBehindALimitOfOne(gates);
		ReservedJob woken = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(woken.id()).isEqualTo("b");
		// a took the window's only permit: b waits for its place in time, not for the
		// running limit, whose place is free
		assertThat(gates().admit(QUEUE, woken.lease(), gates, LEASE)).isPositive();
		assertThat(this.operations.stats(QUEUE)).as("c woken for the place, b deferred, a not acknowledged")
			.isEqualTo(new QueueStats(1, 1, 1, 0));
		assertThat(this.template.hasKey(this.keys.lines())).isFalse();
	}

	@Test // GH-36
	void aJobWokenForAPlaceThatDiesBeforeItsAdmissionPassesThePlaceToTheNextInLine() {
		wakeTheSecondOfThreeJobsBehindALimitOfOne();
		// b, woken, is reserved by workers that die before they admit it, past the stalls
		// allowed (none), until it dies of its last attempt
		for (int attempt = 1; attempt <= 3; attempt++) {
			assertThat(this.listener.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs()).extracting(ReservedJob::id)
				.containsExactly("b");
			await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE, 0).expiredLeases() == 1);
		}
		assertThat(this.operations.stats(QUEUE)).as("c woken for the place b never took, a not acknowledged")
			.isEqualTo(new QueueStats(1, 0, 1, 1));
		assertThat(this.template.opsForHash().hasKey(this.keys.parked(), "b")).isFalse();
	}

	@Test // GH-36
	void aParkedJobWhosePayloadAndLevelAreReplacedStaysParkedInItsPlace() {
		List<ReservedJob> reserved = admitTheFirstOfFourAndParkTheRest();
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand("j2", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD,
				"\"priority\":9,\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"y\"}")));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 3, 1, 0));
		assertThat(this.template.hasKey(this.keys.queued())).as("made ready at its new level").isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).as("taken out of the ready list").isFalse();
		assertThat(this.operations.status(QUEUE, "j2").at()).as("parked").isNull();
		GateOperations.HandOver next = gates().completeAndLeaveGates(QUEUE, reserved.get(0).lease(), GATES, LEASE, 5)
			.next();
		assertThat(next).isNotNull();
		assertThat(next.job().id()).isEqualTo("j1");
		assertThat(next.run()).extracting(ReservedJob::id).containsExactly("j2", "j3");
		assertThat(next.run().get(0).envelope()).contains("\"payload\":\"y\"");
	}

	@Test // GH-36
	void aRunWhoseWorkerDiedFreesItsPlaceAsItsHoldExpiresAndItsJobsComeBackAsTheirLeasesExpire() {
		List<ReservedJob> reserved = admitTheFirstOfFourAndParkTheRest();
		Duration shortLease = Duration.ofMillis(300);
		GateOperations.HandOver run = gates()
			.completeAndLeaveGates(QUEUE, reserved.get(0).lease(), GATES, shortLease, 5)
			.next();
		assertThat(run).isNotNull();
		assertThat(run.run()).extracting(ReservedJob::id).containsExactly("j2", "j3");
		// the worker dies before it ran any: while the leases live, nothing moves
		assertThat(this.listener.migrate(QUEUE).expiredLeases()).isZero();
		enqueue("late");
		ReservedJob late = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(gates().admit(QUEUE, late.lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 3);
		String running = this.keys.gates(GATES).get(2);
		assertThat(this.template.opsForZSet().zCard(running)).as("the place freed").isZero();
		assertThat(this.template.hasKey(this.keys.holding())).isFalse();
		assertThat(this.operations.stats(QUEUE)).as("back in line, the late job woken")
			.isEqualTo(new QueueStats(4, 0, 0, 0));
		List<ReservedJob> again = this.listener.reserve(QUEUE, 4, LEASE).jobs();
		assertThat(again).extracting(ReservedJob::id).containsExactlyInAnyOrder("j1", "j2", "j3", "late");
	}

	@Test // GH-36
	void aPlaceTakenWhileAPurgeRanIsFreedForTheJobParkedBehindItAfterItsHolderDied() {
		enqueue("a");
		Duration shortLease = Duration.ofMillis(300);
		Lease a = this.listener.reserve(QUEUE, 1, shortLease).jobs().get(0).lease();
		// the purge's SCAN found no gate: a is admitted after it, before the purge script
		// runs with the gates found
		assertThat(gates().admit(QUEUE, a, GATES, shortLease)).isZero();
		this.operations.getStore()
			.runOnce(this.operations.getStore().getScripts().purge(), QUEUE, List.of(), List.of("0"), null, "purge");
		assertThat(this.template.hasKey(this.keys.gates(GATES).get(2))).as("the place a took").isTrue();
		// a's worker dies; a job dispatched since parks behind a's place
		enqueue("b");
		ReservedJob b = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(gates().admit(QUEUE, b.lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			this.listener.migrate(QUEUE);
			assertThat(this.operations.stats(QUEUE)).as("b woken as a's hold expired")
				.isEqualTo(new QueueStats(1, 0, 0, 0));
		});
		ReservedJob woken = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(woken.id()).isEqualTo("b");
		assertThat(gates().admit(QUEUE, woken.lease(), GATES, LEASE)).isZero();
	}

	@Test // GH-36
	void aJobParkedBehindAnExclusiveKeyThatHoldsANulIsWokenAsItsHoldersLeaseExpires() {
		// the application's key, which a gate's record in held splits at its NUL
		Gates exclusive = new Gates("order\u000017", "test", 0, 0, null);
		enqueue("a");
		Duration shortLease = Duration.ofMillis(300);
		Lease a = this.listener.reserve(QUEUE, 1, shortLease).jobs().get(0).lease();
		assertThat(gates().admit(QUEUE, a, exclusive, shortLease)).isZero();
		enqueue("b");
		ReservedJob b = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(gates().admit(QUEUE, b.lease(), exclusive, LEASE)).isEqualTo(GateOperations.PARKED);
		// a's worker dies
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			this.listener.migrate(QUEUE);
			assertThat(this.operations.status(QUEUE, "b").state()).as("b woken as a's hold expired")
				.isEqualTo(JobStatus.State.READY);
		});
		assertThat(this.template.hasKey(this.keys.lines())).as("no line entry left").isFalse();
	}

	@Test // GH-36
	void aWokenJobThatANewDispatchReplacesBeforeItsAdmissionPassesItsPlaceToTheNextInLine() {
		wakeTheSecondOfThreeJobsBehindALimitOfOne();
		// before a worker admits it, a dispatch replaces b with a job of other gates,
		// which is let through them
		Gates other = new Gates(null, "other", 1, 0, null);
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand("b", Due.NOW, DuplicatePolicy.REPLACE,
				"\"job\":\"other\",\"maxAttempts\":3,\"payload\":\"y\"}")));
		Map<String, ReservedJob> next = new TreeMap<>();
		this.listener.reserve(QUEUE, 3, LEASE).jobs().forEach((job) -> next.put(job.id(), job));
		assertThat(next.keySet()).as("c woken for the place b was woken for").containsExactly("b", "c");
		assertThat(gates().admit(QUEUE, next.get("b").lease(), other, LEASE)).isZero();
		assertThat(gates().admit(QUEUE, next.get("c").lease(), GATES, LEASE)).isZero();
		assertThat(this.template.hasKey(this.keys.lines())).isFalse();
		assertThat(this.template.hasKey(this.keys.parked())).isFalse();
	}

	@Test // GH-36
	void aWokenJobAdmittedWithoutAPlaceInTheGateItWasWokenForPassesThatPlaceToTheNextInLine() {
		wakeTheSecondOfThreeJobsBehindALimitOfOne();
		ReservedJob woken = this.listener.reserve(QUEUE, 3, LEASE).jobs().get(0);
		assertThat(woken.id()).isEqualTo("b");
		// a deploy lifted the limit meanwhile: b takes no place in the running set
		Gates unlimited = new Gates(null, "test", 0, 0, null);
		assertThat(gates().admit(QUEUE, woken.lease(), unlimited, LEASE)).isZero();
		assertThat(this.listener.reserve(QUEUE, 3, LEASE).jobs()).extracting(ReservedJob::id)
			.as("c woken for the place b did not take")
			.containsExactly("c");
	}

	/**
	 * Park b and c behind a, then let a leave without taking the next job: b is woken for
	 * the place a freed, c stays in line.
	 */
	/**
	 * Reserve four jobs j0 to j3: j0 is admitted past {@link #GATES}, the others park
	 * behind it, in that order.
	 */
	private List<ReservedJob> admitTheFirstOfFourAndParkTheRest() {
		for (int i = 0; i < 4; i++) {
			enqueue("j" + i);
		}
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 4, LEASE).jobs();
		assertThat(gates().admit(QUEUE, reserved.get(0).lease(), GATES, LEASE)).isZero();
		for (ReservedJob job : reserved.subList(1, 4)) {
			assertThat(gates().admit(QUEUE, job.lease(), GATES, LEASE)).isEqualTo(GateOperations.PARKED);
		}
		return reserved;
	}

	private void wakeTheSecondOfThreeJobsBehindALimitOfOne() {
		wakeTheSecondOfThreeJobsBehindALimitOfOne(GATES);
	}

	/**
	 * Enqueue a, b and c of job "test": a is admitted past the gates, b and c park behind
	 * it, and a leaves them without a hand-over (it stays reserved): b is woken, ready.
	 */
	private void wakeTheSecondOfThreeJobsBehindALimitOfOne(Gates gates) {
		enqueue("a");
		enqueue("b");
		enqueue("c");
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 3, LEASE).jobs();
		assertThat(gates().admit(QUEUE, jobs.get(0).lease(), gates, LEASE)).isZero();
		assertThat(gates().admit(QUEUE, jobs.get(1).lease(), gates, LEASE)).isEqualTo(GateOperations.PARKED);
		assertThat(gates().admit(QUEUE, jobs.get(2).lease(), gates, LEASE)).isEqualTo(GateOperations.PARKED);
		assertThat(gates().leaveGates(QUEUE, jobs.get(0).lease(), gates, Duration.ZERO, 0)).isNull();
	}

	/**
	 * Return how many commands Redis ran, those of scripts included, besides
	 * {@code INFO}.
	 */
	private long commandCalls() {
		long calls = 0;
		for (String line : this.redis.command("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				int from = line.indexOf("calls=") + "calls=".length();
				calls += Long.parseLong(line.substring(from, line.indexOf(',', from)));
			}
		}
		return calls;
	}

	/**
	 * Return every key of the Redis with its serialized value.
	 */
	private Map<String, String> dump() {
		Map<String, String> values = new TreeMap<>();
		for (String key : this.template.keys("*")) {
			byte[] value = this.template
				.execute((RedisCallback<byte[]>) (connection) -> connection.keyCommands().dump(key.getBytes()));
			values.put(key, Arrays.toString(value));
		}
		return values;
	}

	private void enqueue(String id) {
		enqueue(id, "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
	}

	private void enqueue(String id, String body) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, body)));
	}

}
