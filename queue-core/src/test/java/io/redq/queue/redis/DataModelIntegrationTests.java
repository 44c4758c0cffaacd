package io.redq.queue.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.DataModelMismatchException;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.listener.StringJobHandler;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the data model version every script checks (see {@code common.lua}): a new
 * queue gets it, a queue of model 1 (before versions were kept) is upgraded in place, and
 * scripts of an older model refuse a queue that scripts of a newer one took over.
 *
 * @author Redq team
 */
class DataModelIntegrationTests extends AbstractQueueIntegrationTests {

	/** The model of today's scripts, as {@code common.lua} declares it. */
	private static final long MODEL = modelOf(read("common.lua"));

	private static final String MISMATCH = "Redq data model " + (MODEL + 1) + " in Redis for queue '" + QUEUE
			+ "', these " + "scripts use model " + MODEL + ": upgrade this instance to a Redq release that uses model "
			+ (MODEL + 1) + " (see \"Upgrading\" in the Redq documentation)";

	private static final Duration LONG_LEASE = Duration.ofMinutes(1);

	private static final Duration SHORT_LEASE = Duration.ofMillis(1);

	@Test
	void readingAQueueNameLeavesNoKeyAndANewQueueIsGivenTheModelOfTheScriptsByItsFirstWrite() {
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.operations.status(QUEUE, "a").state()).isEqualTo(JobStatus.State.NONE);
		assertThat(this.operations.deadJobs(QUEUE, 0, 10)).isEmpty();
		assertThat(this.operations.deadJob(QUEUE, "a")).isNull();
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).as("keys left by reads").isEmpty();
		assertThat(this.listener.checkDataModel(QUEUE)).isEqualTo(MODEL);
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		this.operations.purge(QUEUE);
		assertThat(this.template.opsForValue().get(this.keys.model())).as("kept by a purge")
			.isEqualTo(Long.toString(MODEL));
	}

	@Test
	void aQueueOfModelOneIsUpgradedInPlaceAndNoJobIsLostDoubledOrRunOverItsAttempts() {
		// as an instance on model 1 left the queue (lease tokens '<sequence>', the
		// attempts
		// hash counting running attempts too) when it was stopped: three jobs running,
		// one
		// of them on its last attempt, and a job waiting for its retry
		for (String id : List.of("last", "stalled", "running", "retried")) {
			this.template.opsForHash().put(this.keys.jobs(), id, envelope(3));
		}
		this.template.opsForHash().putAll(this.keys.leases(), Map.of("last", "1", "stalled", "2", "running", "3"));
		this.template.opsForHash()
			.putAll(this.keys.attempts(), Map.of("last", "3", "stalled", "1", "running", "2", "retried", "1"));
		this.template.opsForZSet().add(this.keys.reserved(), "last", 1);
		this.template.opsForZSet().add(this.keys.reserved(), "stalled", 1);
		this.template.opsForZSet().add(this.keys.reserved(), "running", Long.MAX_VALUE / 2);
		this.template.opsForList().rightPush(this.keys.ready(), "retried");
		this.template.opsForValue().set(this.keys.sequence(), "3");
		assertThat(this.listener.migrate(QUEUE).expiredLeases()).isEqualTo(2);
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		assertThat(this.template.opsForHash().get(this.keys.leases(), "running")).as("the attempt moved into the lease")
			.isEqualTo("3:2");
		// no renewal of model 1 confirmed a run: each expired lease is a stall, whose
		// attempt is given back
		assertThat(this.template.opsForHash().entries(this.keys.attempts())).containsOnly(entry("last", "2"),
				entry("retried", "1"));
		assertThat(this.template.opsForHash().entries(this.keys.stalls())).containsOnly(entry("last", "1"),
				entry("stalled", "1"));
		assertThat((String) this.template.opsForHash().get(this.keys.errors(), "last"))
			.startsWith("Stalled before its run was confirmed (stall 1 of at most 1, attempt 3 given back)");
		// the running job's worker is gone too; a job that kills its worker stalls on
		// every attempt, and past the stall bound each stall uses an attempt
		this.template.opsForZSet().add(this.keys.reserved(), "running", 1);
		Map<String, List<Integer>> runs = runAll(this.operations, "stalled");
		assertThat(runs).containsOnly(entry("last", List.of(3)), entry("running", List.of(2)),
				entry("retried", List.of(2)), entry("stalled", List.of(1, 2, 3)));
		assertThat(this.template.opsForZSet().range(this.keys.dead(), 0, -1)).containsExactly("stalled");
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactly("stalled");
	}

	@Test
	void aQueueOfModelThreeIsTakenOverAsItIsAndEveryJobRunsOnce() {
		// as an instance on model 3 left the queue: ready jobs without stale entries, a
		// delayed one, and the reply of a dispatch remembered under its nonce
		for (String id : List.of("a", "b", "c", "timer")) {
			this.template.opsForHash().put(this.keys.jobs(), id, envelope(3));
		}
		this.template.opsForList().rightPushAll(this.keys.ready(), "a", "b", "c");
		this.template.opsForZSet().add(this.keys.delayed(), "timer", Long.MAX_VALUE / 2);
		this.template.opsForValue().set(this.keys.model(), "3");
		String sent = "redq:{" + QUEUE + "}:sent:nonce";
		this.template.opsForValue().set(sent, "1", Duration.ofMinutes(2));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 1, 0, 0));
		assertThat(this.template.opsForValue().get(this.keys.model())).as("read only").isEqualTo("3");
		assertThat(this.operations.cancel(QUEUE, "b")).isTrue();
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		assertThat(this.operations.reschedule(QUEUE, "timer", Due.NOW)).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 0, 0, 0));
		assertThat(runAll(this.operations, null)).containsOnly(entry("a", List.of(1)), entry("c", List.of(1)),
				entry("timer", List.of(1)));
		assertThat(this.template.getExpire(sent)).as("the old dispatch's reply expires as it would have").isPositive();
	}

	@Test
	void aQueueOfModelFourWithAJobWaitingForAGateIsTakenOverAndTheJobIsParkedThenWokenByTheHolder() {
		// as an instance on model 4 left the queue: a run holds an exclusive key, and a
		// job
		// stopped by it was deferred by the recheck delay and listed in the key's waiting
		// set
		Gates gates = new Gates("k", "send", 0, 0, null);
		List<String> gateKeys = this.keys.gates(gates);
		this.template.opsForHash().put(this.keys.jobs(), "waiter", envelope(3));
		this.template.opsForZSet().add(this.keys.delayed(), "waiter", 1);
		String waiting = "redq:{" + QUEUE + "}:waiting:exclusive:k";
		this.template.opsForZSet().add(waiting, "waiter", 1);
		this.template.expire(waiting, Duration.ofMinutes(2));
		this.template.opsForHash().put(this.keys.jobs(), "holder", envelope(3));
		this.template.opsForZSet().add(this.keys.reserved(), "holder", Long.MAX_VALUE / 2);
		this.template.opsForHash().put(this.keys.leases(), "holder", "7:1");
		this.template.opsForValue().set(gateKeys.get(1), "holder:7:1", Duration.ofMinutes(1));
		this.template.opsForValue().set(this.keys.model(), "4");
		assertThat(this.listener.migrate(QUEUE).dueJobs()).as("deferred by a recheck: due").isOne();
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		ReservedJob waiter = this.listener.reserve(QUEUE, 1, LONG_LEASE).jobs().get(0);
		assertThat(this.listener.getGateOperations().admit(QUEUE, waiter.lease(), gates, LONG_LEASE))
			.as("the key a model-4 run holds stops it: parked")
			.isEqualTo(GateOperations.PARKED);
		this.listener.getGateOperations().leaveGates(QUEUE, new Lease("holder", "7:1"), gates, Duration.ZERO, 0);
		assertThat(this.operations.stats(QUEUE)).as("the model-4 run left its key: the waiter is woken")
			.isEqualTo(new QueueStats(1, 0, 1, 0));
		assertThat(this.listener.getGateOperations()
			.admit(QUEUE, this.listener.reserve(QUEUE, 1, LONG_LEASE).jobs().get(0).lease(), gates, LONG_LEASE))
			.isZero();
	}

	@Test
	void runsOfAQueueOfModelThreeAreTakenOverWithoutLossDoubleRunsOrAttemptsBeyondTheLimitAndOnlyModelFourCounts() {
		// as an instance on model 3 left the queue, which had neither the runs nor the
		// stats hash: three confirmed runs, one in its lease, one whose worker stalled
		// past it, one on its last attempt
		for (String id : List.of("in-time", "late", "last")) {
			this.template.opsForHash().put(this.keys.jobs(), id, envelope(3));
		}
		this.template.opsForHash().putAll(this.keys.leases(), Map.of("in-time", "1:1", "late", "2:1", "last", "3:3"));
		this.template.opsForZSet().add(this.keys.reserved(), "in-time", Long.MAX_VALUE / 2);
		this.template.opsForZSet().add(this.keys.reserved(), "late", 1);
		this.template.opsForZSet().add(this.keys.reserved(), "last", Long.MAX_VALUE / 2);
		this.template.opsForSet().add(this.keys.started(), "in-time", "late", "last");
		this.template.opsForValue().set(this.keys.sequence(), "3");
		this.template.opsForValue().set(this.keys.model(), "3");
		// the model-3 runs finish under today's scripts
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(new Lease("in-time", "1:1")))).isEmpty();
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, new Lease("last", "3:3"), "boom", null)).isTrue();
		assertThat(this.listener.migrate(QUEUE).expiredLeases()).isOne();
		// the lease of the model-3 run that stalled past it ended under today's scripts,
		// which recorded the run: it is accepted when it finishes late, as any run whose
		// job no worker reserved since, and its job does not run again
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(new Lease("late", "2:1")))).isEmpty();
		assertThat(runAll(this.operations, null)).isEmpty();
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactly("last");
		assertThat(this.template.opsForZSet().range(this.keys.dead(), 0, -1)).containsExactly("last");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 1));
		assertThat(this.template.<String, String>opsForHash().entries(this.keys.runs()))
			.as("only the dead job's last run, kept with the job")
			.containsExactly(entry("last", "3:3"));
		// the series count what today's scripts finished, each once: 2 completed, 1
		// failed attempt, 1 dead
		assertThat(finishedThisHour()).containsExactly(2, 1, 1);
	}

	@Test
	void reservedIsASkiplistFromItsFirstJobAndCountsListingsAndTheMigratorLeaveOutItsLastMember() {
		enqueue(this.operations, "a");
		enqueue(this.operations, "b");
		ReservedJob a = this.listener.reserve(QUEUE, 1, LONG_LEASE).jobs().get(0);
		assertThat(encodingOf(this.keys.reserved())).isEqualTo("skiplist");
		assertThat(this.template.opsForZSet().zCard(this.keys.reserved())).as("the job and the member at +inf")
			.isEqualTo(2);
		QueueReader reader = new QueueReader(this.operations.getStore());
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 1, 0));
		assertThat(reader.count(QUEUE, QueueReader.ScoredSet.RESERVED)).isOne();
		assertThat(reader.entries(QUEUE, QueueReader.ScoredSet.RESERVED, 0, 9)).extracting(QueueReader.Entry::id)
			.containsExactly(a.id());
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(a.lease()))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
		assertThat(reader.entries(QUEUE, QueueReader.ScoredSet.RESERVED, 0, 9)).isEmpty();
		assertThat(this.listener.migrate(QUEUE).nextDue()).as("nothing due for the member at +inf").isNegative();
		assertThat(this.template.hasKey(this.keys.reserved())).as("deleted with its last member").isFalse();
	}

	@Test
	void aGracefulReleaseOfTheLastReservedJobLeavesNoReservedSetBehind() {
		enqueue(this.operations, "a");
		ReservedJob a = this.listener.reserve(QUEUE, 1, LONG_LEASE).jobs().get(0);
		// the last consumer stops: no migrator may pass again
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(a.lease()), true)).isOne();
		assertThat(this.template.hasKey(this.keys.reserved())).as("deleted with its last job").isFalse();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
	}

	@Test
	void aQueueOfModelFiveIsTakenOverAndItsReservedListpackBecomesASkiplistWithItsNextRun() {
		// as an instance on model 5 left the queue: a run in its lease in a listpack,
		// and two ready jobs
		for (String id : List.of("running", "a", "b")) {
			this.template.opsForHash().put(this.keys.jobs(), id, envelope(3));
		}
		this.template.opsForHash().put(this.keys.leases(), "running", "1:1");
		this.template.opsForZSet().add(this.keys.reserved(), "running", Long.MAX_VALUE / 2);
		this.template.opsForList().rightPushAll(this.keys.ready(), "a", "b");
		this.template.opsForValue().set(this.keys.sequence(), "1");
		this.template.opsForValue().set(this.keys.model(), "5");
		// Redis 6.2 calls it a ziplist
		assertThat(encodingOf(this.keys.reserved())).isIn("listpack", "ziplist");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(2, 0, 1, 0));
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 10, LONG_LEASE).jobs();
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		assertThat(encodingOf(this.keys.reserved())).isEqualTo("skiplist");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 3, 0));
		List<Lease> leases = new ArrayList<>(reserved.stream().map(ReservedJob::lease).toList());
		leases.add(new Lease("running", "1:1"));
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, leases)).as("the model-5 run completes too").isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		this.listener.migrate(QUEUE);
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).doesNotContain(this.keys.reserved(), this.keys.jobs());
	}

	@Test
	void aQueueOfModelSixWithJobsParkedInDelayedIsTakenOverWhileItDrainsAndItsParkedJobsLeaveDelayedInBatches() {
		// as an instance on model 6 left the queue: one run holds the place of a limit of
		// one, and 1,200 jobs wait behind it, each in its line, in parked and, as model 6
		// kept them, in delayed at +inf
		Gates gates = new Gates(null, "test", 1, 0, null);
		int parked = 1200;
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i <= parked; i++) {
			commands.add(new EnqueueCommand("p" + i, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}"));
		}
		this.operations.getEnqueueOperations().enqueue(QUEUE, commands);
		List<ReservedJob> reserved = new ArrayList<>(this.listener.reserve(QUEUE, 1000, LONG_LEASE).jobs());
		reserved.addAll(this.listener.reserve(QUEUE, 1000, LONG_LEASE).jobs());
		GateOperations gateOperations = this.listener.getGateOperations();
		assertThat(gateOperations.admit(QUEUE, reserved.get(0).lease(), gates, LONG_LEASE)).isZero();
		for (ReservedJob job : reserved.subList(1, reserved.size())) {
			assertThat(gateOperations.admit(QUEUE, job.lease(), gates, LONG_LEASE)).isEqualTo(GateOperations.PARKED);
			this.template.opsForZSet().add(this.keys.delayed(), job.id(), Double.POSITIVE_INFINITY);
		}
		this.template.opsForValue().set(this.keys.model(), "6");
		assertThat(this.operations.stats(QUEUE)).as("each parked job counted once")
			.isEqualTo(new QueueStats(0, parked, 1, 0));
		assertThat(this.operations.status(QUEUE, "p7").state()).isEqualTo(JobStatus.State.DELAYED);
		// the run leaves its place under today's scripts: the queue is upgraded, and the
		// jobs handed over leave delayed with their lines
		GateOperations.HandOver run = gateOperations
			.completeAndLeaveGates(QUEUE, reserved.get(0).lease(), gates, LONG_LEASE, 5)
			.next();
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL));
		assertThat(run).isNotNull();
		assertThat(run.run()).hasSize(5);
		for (String id : List.of("p1", "p2", "p3", "p4", "p5", "p6")) {
			assertThat(this.template.opsForZSet().score(this.keys.delayed(), id)).as(id).isNull();
		}
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, parked - 6, 6, 0));
		// a job still in delayed at +inf is parked: it is told, cancelled and rescheduled
		// as one
		JobStatus left = this.operations.status(QUEUE, "p7");
		assertThat(left.state()).isEqualTo(JobStatus.State.DELAYED);
		assertThat(left.at()).isNull();
		assertThat(this.operations.cancel(QUEUE, "p10")).isTrue();
		assertThat(this.operations.reschedule(QUEUE, "p11", Due.after(Duration.ofHours(1)))).isTrue();
		assertThat(this.template.opsForZSet().score(this.keys.delayed(), "p10")).isNull();
		assertThat(this.template.opsForZSet().score(this.keys.delayed(), "p11")).isFinite();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, parked - 7, 6, 0));
		// the migrator takes the rest out of delayed, at most a batch a pass, and comes
		// back at once until none is left
		Migration first = this.listener.migrate(QUEUE);
		assertThat(first.nextDue()).as("due again at once").isLessThanOrEqualTo(first.redisTime());
		assertThat(this.template.opsForZSet().zCard(this.keys.delayed())).isEqualTo(parked - 8 - 1000 + 1);
		this.listener.migrate(QUEUE);
		assertThat(this.template.opsForZSet().range(this.keys.delayed(), 0, -1)).as("delayed").containsExactly("p11");
		assertThat(this.listener.migrate(QUEUE).nextDue()).as("nothing due: every job waits in its line")
			.isGreaterThan(first.redisTime() + 30_000);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, parked - 7, 6, 0));
		// the queue drains: every job completes once
		Map<String, Integer> completed = new TreeMap<>();
		completed.put("p0", 1);
		GateOperations.HandOver next = run;
		while (next != null) {
			List<ReservedJob> jobs = new ArrayList<>();
			jobs.add(next.job());
			jobs.addAll(next.run());
			for (ReservedJob job : jobs) {
				completed.merge(job.id(), 1, Integer::sum);
			}
			// a run's jobs complete by their own leases, and it leaves the place under
			// its
			// first's
			assertThat(this.listener.getLeaseOperations().ack(QUEUE, jobs.stream().map(ReservedJob::lease).toList()))
				.isEmpty();
			next = gateOperations.leaveGates(QUEUE, next.job().lease(), gates, LONG_LEASE, 255);
		}
		assertThat(completed).hasSize(parked - 1).allSatisfy((id, times) -> assertThat(times).as(id).isOne());
		assertThat(completed).doesNotContainKeys("p10", "p11");
		assertThat(this.operations.stats(QUEUE)).as("p11 rescheduled").isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(this.template.keys("redq:{" + QUEUE + "}:*")).doesNotContain(this.keys.lines(), this.keys.parked());
	}

	private @Nullable String encodingOf(String key) {
		return this.template.execute(RedisScript.of("return redis.call('OBJECT', 'ENCODING', KEYS[1])", String.class),
				List.of(key));
	}

	/**
	 * Return the completed, failed and dead counts of the stats hash's hour ring, summed
	 * (a test may cross the turn of an hour).
	 */
	private int[] finishedThisHour() {
		int[] counts = new int[3];
		this.template.<String, String>opsForHash().entries(this.keys.stats()).forEach((field, value) -> {
			if (field.startsWith("h")) {
				String[] parts = value.split(" ");
				for (int i = 0; i < 3; i++) {
					counts[i] += Integer.parseInt(parts[i + 1]);
				}
			}
		});
		return counts;
	}

	@Test
	void scriptsOfAnOlderModelRefuseAQueueThatScriptsOfTheNextTookOverAndEveryJobCompletesOnceWithinItsAttempts() {
		RedisJobQueueOperations next = nextModel();
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			ids.add("j" + i);
			enqueue(this.operations, "j" + i);
		}
		Map<String, List<Integer>> completed = new TreeMap<>();
		// today's instance runs a batch and completes half of it
		List<ReservedJob> todays = this.listener.reserve(QUEUE, 4, SHORT_LEASE).jobs();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(todays.get(0).lease(), todays.get(1).lease())))
			.isEmpty();
		completed.put(todays.get(0).id(), new ArrayList<>(List.of(1)));
		completed.put(todays.get(1).id(), new ArrayList<>(List.of(1)));
		// an instance of the next model touches the queue
		ids.add("next");
		enqueue(next, "next");
		// today's scripts refuse the queue: no result, reserve, dispatch or start
		assertThatExceptionOfType(DataModelMismatchException.class)
			.isThrownBy(() -> this.listener.getLeaseOperations()
				.ack(QUEUE, List.of(todays.get(2).lease(), todays.get(3).lease())))
			.withMessage(MISMATCH);
		assertThatExceptionOfType(DataModelMismatchException.class)
			.isThrownBy(() -> this.listener.reserve(QUEUE, 10, LONG_LEASE))
			.withMessage(MISMATCH);
		try (RedisConnection connection = this.listener.openWakeUpConnection()) {
			assertThatExceptionOfType(DataModelMismatchException.class)
				.isThrownBy(
						() -> this.listener.reserveOnWakeUp(connection, QUEUE, 10, LONG_LEASE, Duration.ofMillis(1)))
				.withMessage(MISMATCH);
		}
		assertThatExceptionOfType(DataModelMismatchException.class).isThrownBy(() -> enqueue(this.operations, "late"))
			.withMessage(MISMATCH);
		assertThatExceptionOfType(DataModelMismatchException.class)
			.isThrownBy(() -> this.listener.checkDataModel(QUEUE))
			.withMessage(MISMATCH);
		// the next model's instance runs the rest, and again the jobs whose results were
		// refused
		runAll(next, null)
			.forEach((id, attempts) -> completed.computeIfAbsent(id, (key) -> new ArrayList<>()).addAll(attempts));
		assertThat(completed).containsOnlyKeys(ids);
		// their runs were never confirmed: stalls, whose attempts were given back
		assertThat(completed.get(todays.get(2).id())).containsExactly(1);
		assertThat(completed.get(todays.get(3).id())).containsExactly(1);
		assertThat(completed.values()).allSatisfy((attempts) -> assertThat(attempts).hasSize(1));
		assertThat(next.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.opsForValue().get(this.keys.model())).isEqualTo(Long.toString(MODEL + 1));
	}

	@Test
	void aContainerRefusesToStartOnAQueueOfANewerModel() {
		nextModel().getListenerOperations().checkDataModel(QUEUE);
		JobDefinition definition = new JobDefinition("send", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class);
		JobListenerContainer container = new JobListenerContainerFactory(this.listener, JsonMapper.shared())
			.createContainer(QUEUE, List.of(new StringJobHandler(definition, (payload, context) -> {
			})));
		assertThatExceptionOfType(DataModelMismatchException.class).isThrownBy(container::start).withMessage(MISMATCH);
		assertThat(container.isRunning()).isFalse();
	}

	/**
	 * Run every job of the queue to its end with the given operations, on short leases,
	 * acknowledging all but the job whose every attempt stalls, which the migrator
	 * recovers with the jobs of other stalled workers.
	 * @return the attempts each job ran, acknowledged or stalled
	 */
	private static Map<String, List<Integer>> runAll(RedisJobQueueOperations operations, @Nullable String stalls) {
		ListenerOperations listener = operations.getListenerOperations();
		Map<String, List<Integer>> runs = new TreeMap<>();
		while (pending(operations.stats(QUEUE)) > 0) {
			// until the leases of stalled runs expire: their jobs are ready again, or
			// dead
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				listener.migrate(QUEUE);
				QueueStats stats = operations.stats(QUEUE);
				return stats.ready() > 0 || pending(stats) == 0;
			});
			List<Lease> completed = new ArrayList<>();
			for (ReservedJob job : listener.reserve(QUEUE, 100, SHORT_LEASE).jobs()) {
				runs.computeIfAbsent(job.id(), (id) -> new ArrayList<>()).add(job.attempt());
				if (!job.id().equals(stalls)) {
					completed.add(job.lease());
				}
			}
			assertThat(listener.getLeaseOperations().ack(QUEUE, completed)).isEmpty();
		}
		return runs;
	}

	/**
	 * Return operations on the same Redis whose scripts declare the next data model.
	 */
	private RedisJobQueueOperations nextModel() {
		return new RedisJobQueueOperations(this.template.getRequiredConnectionFactory(), nextModelScripts(),
				new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX));
	}

	private static long pending(QueueStats stats) {
		return stats.ready() + stats.delayed() + stats.reserved();
	}

	private static void enqueue(RedisJobQueueOperations operations, String id) {
		operations.getEnqueueOperations()
			.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"send\",\"maxAttempts\":3,\"timeout\":0,\"payload\":\"x\"}")));
	}

	private static String envelope(int maxAttempts) {
		return "{\"createdAt\":1,\"availableAt\":1,\"job\":\"send\",\"maxAttempts\":" + maxAttempts
				+ ",\"timeout\":0,\"payload\":\"x\"}";
	}

	/**
	 * Today's scripts with the next data model, as a release that changes the model
	 * without rewriting data would ship them.
	 */
	private static QueueScripts nextModelScripts() {
		String common = read("common.lua");
		String next = common.replace("local MODEL = " + MODEL + "\n", "local MODEL = " + (MODEL + 1) + "\n");
		assertThat(next).as("the model of common.lua").isNotEqualTo(common);
		return QueueScripts.from((definition) -> RedisScript.of(next + "\n" + read(definition.name() + ".lua"),
				definition.resultType()));
	}

	private static long modelOf(String common) {
		Matcher matcher = Pattern.compile("\nlocal MODEL = (\\d+)\n").matcher(common);
		assertThat(matcher.find()).as("the model of common.lua").isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private static String read(String name) {
		try {
			return new ClassPathResource(name, QueueScripts.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
