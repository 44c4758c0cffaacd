package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.ScriptExecutions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobLeaseKeeper} against a real Redis.
 *
 * @author Redq team
 */
class JobLeaseKeeperIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE_TIME = Duration.ofMinutes(5);

	private final List<JobMetrics.Outcome> outcomes = new CopyOnWriteArrayList<>();

	private JobLeaseKeeper leaseKeeper;

	@BeforeEach
	void setUp() {
		this.leaseKeeper = leaseKeeper(LEASE_TIME);
	}

	private JobLeaseKeeper leaseKeeper(Duration leaseTime) {
		ContainerProperties properties = new ContainerProperties();
		properties.setLeaseTime(leaseTime);
		JobOutcomes jobOutcomes = new JobOutcomes(QUEUE, this.listener,
				new JobAcknowledger(QUEUE, this.listener, ContainerProperties.DEFAULT_LEASE_TIME));
		jobOutcomes.setMetrics(new JobMetrics() {

			@Override
			public void processed(String queue, String job, Outcome outcome, @Nullable Throwable error,
					Duration processing, Duration wait) {
				JobLeaseKeeperIntegrationTests.this.outcomes.add(outcome);
			}

		});
		return new JobLeaseKeeper(QUEUE, this.listener, properties, List.of(), jobOutcomes, (nanos) -> 0);
	}

	@Test // GH-36
	void aJobLetThroughItsGatesAsItWasHandedOverHoldsThemWhileItWaitsForAWorkerAndStartsWithoutAnAdmission() {
		Gates gates = new Gates(null, "test", 1, 0, null);
		List<JobExecution> jobs = reserve(2, LEASE_TIME);
		assertThat(this.leaseKeeper.admit(jobs.get(0), gates)).isTrue();
		assertThat(this.leaseKeeper.admit(jobs.get(1), gates)).as("parked").isFalse();
		// handed over with a lease of a second, which its hold of the gates ends with
		JobLeaseKeeper.HandedOver handed = leaseKeeper(Duration.ofSeconds(1)).leave(jobs.get(0), gates, true);
		assertThat(handed).isNotNull();
		assertThat(handed.admittedTo()).isEqualTo(gates);
		String running = this.keys.gates(gates).get(2);
		String holder = "j1:" + handed.job().token();
		double heldUntil = this.template.opsForZSet().score(running, holder);
		JobExecution waiting = new JobExecution(handed.job(), QUEUE, new Semaphore(0), this.leaseKeeper, this.listener,
				() -> false, handed.leaseEndNanos(), handed.admittedTo());
		this.leaseKeeper.renew(List.of(waiting));
		assertThat(this.template.opsForZSet().score(running, holder)).as("held on while it waits for a worker")
			.isGreaterThan(heldUntil + Duration.ofMinutes(1).toMillis());
		assertThat(this.template.opsForZSet().score(this.keys.holding(), holder)).isGreaterThan(heldUntil);
		assertThat(this.leaseKeeper.admit(waiting, gates)).isTrue();
		assertThat(waiting.isStarted()).isTrue();
		assertThat(this.template.opsForZSet().range(running, 0, -1)).containsExactly(holder);
	}

	@Test
	void aJobStartsOnTheFullLeaseItWasReservedWithWithoutACallAndOneThatWaitedLongGetsTheFullLeaseAgain() {
		JobExecution fresh = reserve(1, LEASE_TIME).get(0);
		long scripts = ScriptExecutions.count(this.redis);
		assertThat(this.leaseKeeper.start(fresh)).isTrue();
		assertThat(fresh.isStarted()).isTrue();
		assertThat(ScriptExecutions.count(this.redis)).as("no call").isEqualTo(scripts);
		assertThat(this.template.opsForHash().get(this.keys.leases(), "j0")).as("started on its reservation's lease")
			.isEqualTo(fresh.job().token());
		// less than two thirds of the full lease left
		JobExecution waited = reserve(1, 1, LEASE_TIME.dividedBy(2), this.leaseKeeper).get(0);
		double before = this.template.opsForZSet().score(this.keys.reserved(), "j1");
		assertThat(this.leaseKeeper.start(waited)).isTrue();
		assertThat(waited.isStarted()).isTrue();
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j1"))
			.isGreaterThanOrEqualTo(before + LEASE_TIME.dividedBy(2).toMillis());
		assertThat(waited.leaseEndsWithin(LEASE_TIME.toNanos() * 2 / 3)).isFalse();
	}

	@Test
	void renewalExtendsTheLeasesOfRunningJobsAndTellsThoseThatLostTheirsWhichRunOn() {
		List<JobExecution> executions = reserve(4, Duration.ofSeconds(2));
		// their worker saw their start recorded, but the last one's
		executions.subList(0, 3).forEach(JobExecution::started);
		executions.get(2).settle();
		this.template.opsForHash().put(this.keys.leases(), "j3", "stolen:1");
		// another worker holds the second job now
		this.template.opsForHash().put(this.keys.leases(), "j1", "stolen:1");
		double before = this.template.opsForZSet().score(this.keys.reserved(), "j0");
		this.leaseKeeper.renew(executions);
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j0"))
			.isGreaterThanOrEqualTo(before + LEASE_TIME.minusSeconds(3).toMillis());
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j2")).as("settled: not renewed")
			.isLessThan(before + 1000);
		assertThat(executions.get(0).isLeaseLost()).isFalse();
		assertThat(executions.get(0).isSettled()).isFalse();
		assertThat(executions.get(1).isLeaseLost()).isTrue();
		assertThat(executions.get(1).isSettled()).as("its result may still be accepted").isFalse();
		assertThat(executions.get(3).isLeaseLost()).isTrue();
		assertThat(executions.get(3).isSettled()).as("not started: it never will be").isTrue();
		assertThat(this.outcomes).containsExactly(JobMetrics.Outcome.LEASE_LOST);
		this.leaseKeeper.renew(executions);
		assertThat(this.outcomes).as("told once").containsExactly(JobMetrics.Outcome.LEASE_LOST);
	}

	@Test
	void renewalGivesAWaitingJobTheWaitingLeaseAndAStartedOneTheFullLeaseWhichItConfirms() {
		List<JobExecution> executions = reserve(3, Duration.ofSeconds(2));
		assertThat(this.leaseKeeper.start(executions.get(0))).isTrue();
		// taken by a worker that has not started it yet: still waiting
		executions.get(1).takenBy(Thread.currentThread());
		double before = this.template.opsForZSet().score(this.keys.reserved(), "j1");
		this.leaseKeeper.renew(executions);
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j0"))
			.isGreaterThanOrEqualTo(before + LEASE_TIME.minusSeconds(3).toMillis());
		for (String waiting : List.of("j1", "j2")) {
			assertThat(this.template.opsForZSet().score(this.keys.reserved(), waiting)).isBetween(
					before + ContainerProperties.WAITING_LEASE_TIME.minusSeconds(3).toMillis(),
					before + ContainerProperties.WAITING_LEASE_TIME.plusSeconds(1).toMillis());
		}
		assertThat(this.template.opsForSet().members(this.keys.started())).containsExactly("j0");
	}

	@Test
	void renewalCallsRedisOnlyWhenAJobWaitsOrARunIsUnconfirmedOrUsedAThirdOfItsLease() {
		List<JobExecution> executions = reserve(1, Duration.ofSeconds(2));
		this.leaseKeeper.renew(executions);
		assertThat(this.leaseKeeper.start(executions.get(0))).isTrue();
		assertThat(this.template.hasKey(this.keys.started())).as("a start alone confirms nothing").isFalse();
		this.leaseKeeper.renew(executions);
		double renewed = this.template.opsForZSet().score(this.keys.reserved(), "j0");
		assertThat(this.template.opsForSet().members(this.keys.started())).containsExactly("j0");
		this.leaseKeeper.renew(executions);
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j0")).as("no call").isEqualTo(renewed);
	}

	@Test
	void aJobAboutToStartGetsTheFullLeaseUnlessItsLeaseWasLost() {
		List<JobExecution> executions = reserve(2, Duration.ofMillis(500));
		double before = this.template.opsForZSet().score(this.keys.reserved(), "j0");
		assertThat(this.leaseKeeper.start(executions.get(0))).isTrue();
		assertThat(executions.get(0).isStarted()).isTrue();
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j0"))
			.isGreaterThanOrEqualTo(before + LEASE_TIME.minusSeconds(3).toMillis());
		assertThat(this.template.hasKey(this.keys.started())).isFalse();
		// another worker holds the second job now
		this.template.opsForHash().put(this.keys.leases(), "j1", "stolen:1");
		assertThat(this.leaseKeeper.start(executions.get(1))).isFalse();
		assertThat(executions.get(1).isStarted()).isFalse();
		assertThat(executions.get(1).isSettled()).isTrue();
		assertThat(this.outcomes).containsExactly(JobMetrics.Outcome.LEASE_LOST);
	}

	@Test
	void aHandlerExtendsItsLeaseUntilItIsLost() {
		JobExecution execution = reserve(1, Duration.ofSeconds(2)).get(0);
		double before = this.template.opsForZSet().score(this.keys.reserved(), "j0");
		assertThat(execution.extendLease(Duration.ofMinutes(10))).isTrue();
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "j0"))
			.isGreaterThanOrEqualTo(before + Duration.ofMinutes(9).toMillis());
		this.template.opsForHash().put(this.keys.leases(), "j0", "stolen:1");
		assertThat(execution.extendLease(Duration.ofMinutes(10))).isFalse();
		assertThat(execution.isLeaseLost()).isTrue();
		assertThat(execution.extendLease(Duration.ofMinutes(10))).as("no call once lost").isFalse();
		assertThat(this.outcomes).containsExactly(JobMetrics.Outcome.LEASE_LOST);
	}

	@Test
	void aStalledRunLosingItsLeaseLeavesTheNewRunOfTheSameJobRunning() {
		JobExecution stalled = reserve(1, Duration.ofMillis(50)).get(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		// the migrator put the job back, and this instance reserved it again
		JobExecution current = reserveReady(1, LEASE_TIME).get(0);
		assertThat(current.getId()).isEqualTo(stalled.getId());
		this.leaseKeeper.renew(List.of(stalled, current));
		assertThat(stalled.isLeaseLost()).isTrue();
		assertThat(stalled.isSettled()).isTrue();
		assertThat(current.isLeaseLost()).as("the new run holds the lease").isFalse();
		assertThat(current.isSettled()).isFalse();
		assertThat(this.outcomes).containsExactly(JobMetrics.Outcome.LEASE_LOST);
	}

	@Test
	void aRenewalOrAnExtensionMovesTheEndOfTheLeaseTheWorkerKnows() {
		List<JobExecution> executions = reserve(2, Duration.ofMillis(100));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> executions.stream().allMatch((execution) -> execution.leaseEndsWithin(0)));
		// no migrator ran: the tokens still hold, so the leases are extended
		this.leaseKeeper.renew(executions.subList(0, 1));
		assertThat(executions.get(0).extendLease(LEASE_TIME)).isTrue();
		assertThat(executions.get(1).extendLease(LEASE_TIME)).isTrue();
		assertThat(executions).noneMatch((execution) -> execution.leaseEndsWithin(0));
		assertThat(this.outcomes).isEmpty();
	}

	@Test
	void aJobThatExtendsItsLeaseHoldsItsExclusiveKeyAndItsPlaceUnderARunningLimitAsLong() {
		Duration leaseTime = Duration.ofMillis(300);
		JobLeaseKeeper leaseKeeper = leaseKeeper(leaseTime);
		List<Gates> limits = List.of(new Gates("k", "exclusive", 0, 0, null), new Gates(null, "capped", 1, 0, null));
		List<JobExecution> running = reserve(0, 2, leaseTime, leaseKeeper);
		for (int i = 0; i < limits.size(); i++) {
			start(running.get(i), limits.get(i), leaseKeeper);
			assertThat(running.get(i).extendLease(Duration.ofMinutes(1))).isTrue();
		}
		// a job waiting for a worker makes the renewal pass call Redis, with the
		// container's shorter lease
		List<JobExecution> held = new ArrayList<>(running);
		held.addAll(reserve(2, 1, leaseTime, leaseKeeper));
		leaseKeeper.renew(held);
		long extendedAt = redisTime();
		await().atMost(Duration.ofSeconds(10)).until(() -> redisTime() > extendedAt + 3 * leaseTime.toMillis());
		List<JobExecution> next = reserve(3, 2, Duration.ofMinutes(1), leaseKeeper);
		for (int i = 0; i < limits.size(); i++) {
			next.get(i).takenBy(Thread.currentThread());
			assertThat(leaseKeeper.admit(next.get(i), limits.get(i)))
				.as("admitted past %s while the job that holds it still holds its lease", limits.get(i))
				.isFalse();
		}
	}

	private void start(JobExecution execution, Gates gates, JobLeaseKeeper leaseKeeper) {
		execution.takenBy(Thread.currentThread());
		assertThat(leaseKeeper.admit(execution, gates)).isTrue();
		JobDefinition definition = new JobDefinition(gates.job(), QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT,
				String.class);
		execution.resolve(new JobEnvelope(0L, 0L, null, null, gates.job(), 3, 0L, null, null),
				new StringJobHandler(definition, (payload, context) -> {
				}));
		execution.begin(gates);
	}

	private long redisTime() {
		return this.template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	private List<JobExecution> reserve(int count, Duration lease) {
		return reserve(0, count, lease, this.leaseKeeper);
	}

	private List<JobExecution> reserve(int first, int count, Duration lease, JobLeaseKeeper leaseKeeper) {
		List<EnqueueCommand> commands = new ArrayList<>(count);
		for (int i = first; i < first + count; i++) {
			commands.add(new EnqueueCommand("j" + i, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":3,\"payload\":" + i + "}"));
		}
		this.enqueuer.enqueue(QUEUE, commands);
		return reserveReady(count, lease, leaseKeeper);
	}

	private List<JobExecution> reserveReady(int count, Duration lease) {
		return reserveReady(count, lease, this.leaseKeeper);
	}

	private List<JobExecution> reserveReady(int count, Duration lease, JobLeaseKeeper leaseKeeper) {
		List<JobExecution> executions = new ArrayList<>(count);
		long reservedNanos = System.nanoTime();
		for (ReservedJob job : this.listener.reserve(QUEUE, count, lease).jobs()) {
			executions.add(new JobExecution(job, QUEUE, new Semaphore(0), leaseKeeper, this.listener, () -> false,
					reservedNanos + lease.toNanos(), null));
		}
		executions.sort((a, b) -> a.getId().compareTo(b.getId()));
		assertThat(executions).hasSize(count);
		return executions;
	}

}
