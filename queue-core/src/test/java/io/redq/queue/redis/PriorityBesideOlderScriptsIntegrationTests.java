package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.QueueStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Tests of priority levels beside an instance whose scripts keep data model 4 as it was
 * before levels (a copy of them in {@code before-levels}): the older scripts see only the
 * ready list, and whatever either instance does, no job is lost, run twice or run past
 * its attempts (see "Priorities" in {@code common.lua}); and a run that finishes after
 * its lease is accepted or refused alike whichever release recorded it in runs.
 *
 * @author Redq team
 */
class PriorityBesideOlderScriptsIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	@Test
	void olderScriptsLeaveQueuedJobsToTheNewOnesAndTakeThemOutOfLineWithoutLosingOrDoublingAny() {
		RedisJobQueueOperations older = olderScripts();
		ListenerOperations olderListener = older.getListenerOperations();
		Set<String> expected = new HashSet<>();
		for (int i = 0; i < 6; i++) {
			enqueue(this.operations, "high-" + i, 9, Due.NOW);
			enqueue(this.operations, "low-" + i, 1, Due.NOW);
			enqueue(older, "old-" + i, JobPriority.DEFAULT, Due.NOW);
			expected.addAll(List.of("high-" + i, "low-" + i, "old-" + i));
		}
		enqueue(this.operations, "timer", 8, Due.after(Duration.ofMillis(50)));
		expected.add("timer");
		// the older instance sees only the ready list: it runs the jobs of the default
		// level
		Map<String, List<Integer>> runs = new TreeMap<>();
		run(olderListener, 100, runs);
		assertThat(runs).containsOnlyKeys("old-0", "old-1", "old-2", "old-3", "old-4", "old-5");
		// it cancels one queued job, reschedules another (to the level it knows: the
		// default) and replaces a third with a dispatch of its own; each leaves a stale
		// count for the job's member of queued
		assertThat(older.cancel(QUEUE, "high-0")).isTrue();
		expected.remove("high-0");
		assertThat(older.reschedule(QUEUE, "high-1", Due.after(Duration.ofMillis(20)))).isTrue();
		enqueue(older, "low-0", JobPriority.DEFAULT, Due.NOW, DuplicatePolicy.REPLACE);
		// a new dispatch of the cancelled id at its level replaces the member counted
		// stale
		enqueue(this.operations, "high-0", 9, Due.NOW);
		expected.add("high-0");
		// the older migrator makes the due timer ready in the ready list
		await().atMost(Duration.ofSeconds(10))
			.until(() -> olderListener.migrate(QUEUE).dueJobs() > 0
					&& this.template.opsForZSet().size(this.keys.delayed()) == 0);
		// both instances run the rest
		while (pending(this.operations.stats(QUEUE)) > 0) {
			run(olderListener, 2, runs);
			run(this.listener, 3, runs);
		}
		assertThat(runs).containsOnlyKeys(expected);
		assertThat(runs.values()).allSatisfy((attempts) -> assertThat(attempts).containsExactly(1));
		assertThat(runs).contains(entry("high-0", List.of(1)));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).as("every stale count was used").isFalse();
		assertThat(this.template.opsForList().size(this.keys.ready())).isZero();
		assertThat(this.template.opsForHash().size(this.keys.jobs())).isZero();
	}

	@Test
	void aQueuedJobCancelledByOlderScriptsIsNotBuriedAsMissingData() {
		RedisJobQueueOperations older = olderScripts();
		enqueue(this.operations, "high", 9, Due.NOW);
		assertThat(older.cancel(QUEUE, "high")).isTrue();
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.hasKey(this.keys.stale())).isFalse();
	}

	@Test // GH-36
	void aGroupedJobTakenOutOfLineByOlderScriptsLeavesNoGroupLineBehindWhenItsIdIsDispatchedOrReadyAgain() {
		RedisJobQueueOperations older = olderScripts();
		// cancelled there, then dispatched here under the same id: at the default level
		// without a group, in another group, in the same group
		Map<String, String> again = Map.of("plain", GroupsIntegrationTests.body(JobPriority.DEFAULT, null), "moved",
				GroupsIntegrationTests.body(7, "other"), "same", GroupsIntegrationTests.body(JobPriority.DEFAULT, "t"));
		again.keySet().forEach((id) -> enqueueBody(id, GroupsIntegrationTests.body(JobPriority.DEFAULT, "t")));
		again.forEach((id, body) -> {
			assertThat(older.cancel(QUEUE, id)).isTrue();
			enqueueBody(id, body);
		});
		// rescheduled there, and ready again here
		enqueueBody("rescheduled", GroupsIntegrationTests.body(3, "t"));
		assertThat(older.reschedule(QUEUE, "rescheduled", Due.after(Duration.ofMillis(20)))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).as("t at 5 and 3, other at 7").isEqualTo(3);
		Map<String, List<Integer>> runs = new TreeMap<>();
		run(this.listener, 10, runs);
		assertThat(runs).containsOnlyKeys("plain", "moved", "same", "rescheduled");
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isZero();
		assertThat(this.template.opsForHash().keys(this.keys.fair())).as("no group line left")
			.noneMatch((field) -> field.toString().startsWith("g") || field.toString().startsWith("c"));
		assertThat(this.template.hasKey(this.keys.levels())).as("no place kept for a job that is gone").isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).isFalse();
	}

	@Test // GH-36
	void aGroupedJobRescheduledByOlderScriptsAndCompletedByItsLateRunLeavesNoGroupLineBehind() {
		RedisJobQueueOperations older = olderScripts();
		enqueueBody("late", GroupsIntegrationTests.body(8, "t"));
		Lease lease = this.listener.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs().get(0).lease();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		// ready again at its level and in its group, rescheduled there: its member of
		// queued stays, counted stale and in its group
		assertThat(older.reschedule(QUEUE, "late", Due.after(Duration.ofMinutes(1)))).isTrue();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(lease)))
			.as("the run finished late completes it")
			.isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isZero();
		assertThat(this.template.opsForHash().keys(this.keys.fair())).as("no group line left")
			.noneMatch((field) -> field.toString().startsWith("g") || field.toString().startsWith("c"));
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
		assertThat(this.template.hasKey(this.keys.levels())).isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).isFalse();
	}

	@Test // GH-36
	void aGroupedJobRescheduledByOlderScriptsAndCancelledHereLeavesNoGroupLineBehind() {
		RedisJobQueueOperations older = olderScripts();
		ListenerOperations olderListener = older.getListenerOperations();
		enqueueBody("delayed", GroupsIntegrationTests.body(8, "t"));
		enqueueBody("ready", GroupsIntegrationTests.body(3, "t"));
		// rescheduled there: each keeps its member of queued, counted stale and in its
		// group; the older migrator then makes one ready in the ready list
		assertThat(older.reschedule(QUEUE, "delayed", Due.after(Duration.ofMinutes(1)))).isTrue();
		assertThat(older.reschedule(QUEUE, "ready", Due.after(Duration.ofMillis(20)))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> olderListener.migrate(QUEUE).dueJobs() == 1);
		assertThat(this.operations.cancel(QUEUE, "delayed")).isTrue();
		assertThat(this.operations.cancel(QUEUE, "ready")).isTrue();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isZero();
		// the entry the older migrator pushed to the ready list stays, counted stale,
		// until a reservation skips it
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).isEmpty();
		assertThat(this.template.opsForList().size(this.keys.ready())).isZero();
		assertThat(this.template.opsForHash().keys(this.keys.fair())).as("no group line left")
			.noneMatch((field) -> field.toString().startsWith("g") || field.toString().startsWith("c"));
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
		assertThat(this.template.hasKey(this.keys.levels())).isFalse();
		assertThat(this.template.hasKey(this.keys.stale())).isFalse();
	}

	private void enqueueBody(String id, String body) {
		this.operations.getEnqueueOperations()
			.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, body)));
	}

	@Test
	void aRunThatFinishesAfterItsLeaseIsJudgedAlikeByEitherReleaseOfTheRunsHash() {
		// the older scripts record every run in runs when they reserve it, today's when
		// its
		// lease ends without its result: a token there means no worker reserved the job
		// since, for both
		ListenerOperations olderListener = olderScripts().getListenerOperations();
		Lease byOlder = reserveAndLetExpire(olderListener, this.listener, "a");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(byOlder)))
			.as("late, reserved by the older scripts")
			.isEmpty();
		Lease byNewer = reserveAndLetExpire(this.listener, this.listener, "b");
		assertThat(olderListener.getLeaseOperations().ack(QUEUE, List.of(byNewer)))
			.as("late, acknowledged by the older scripts")
			.isEmpty();
		Lease overtaken = reserveAndLetExpire(this.listener, this.listener, "c");
		ReservedJob again = olderListener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(overtaken))).as("reserved again since")
			.containsExactly("c");
		// the older ack.lua's reply (the refused ids alone, without the chain steps it
		// created) reads the same
		assertThat(olderListener.getLeaseOperations().ack(QUEUE, List.of(overtaken))).containsExactly("c");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(again.lease()))).isEmpty();
		// an expiry the older migrator recovers records nothing: the late run is refused
		// and its job runs again, as before either release
		Lease unrecorded = reserveAndLetExpire(this.listener, olderListener, "d");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(unrecorded))).containsExactly("d");
		Map<String, List<Integer>> runs = new TreeMap<>();
		run(this.listener, 10, runs);
		assertThat(runs).containsOnlyKeys("d");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	/**
	 * Reserve a job with a short lease that then expires unconfirmed and is recovered.
	 */
	private Lease reserveAndLetExpire(ListenerOperations reserving, ListenerOperations migrating, String id) {
		enqueue(this.operations, id, JobPriority.DEFAULT, Due.NOW);
		Lease lease = reserving.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs().get(0).lease();
		assertThat(lease.id()).isEqualTo(id);
		await().atMost(Duration.ofSeconds(10)).until(() -> migrating.migrate(QUEUE).expiredLeases() == 1);
		return lease;
	}

	private static void run(ListenerOperations listener, int count, Map<String, List<Integer>> runs) {
		listener.migrate(QUEUE);
		List<Lease> done = new ArrayList<>();
		for (ReservedJob job : listener.reserve(QUEUE, count, LEASE).jobs()) {
			runs.computeIfAbsent(job.id(), (id) -> new ArrayList<>()).add(job.attempt());
			done.add(job.lease());
		}
		assertThat(listener.getLeaseOperations().ack(QUEUE, done)).isEmpty();
	}

	private static long pending(QueueStats stats) {
		return stats.ready() + stats.delayed() + stats.reserved();
	}

	private static void enqueue(RedisJobQueueOperations operations, String id, int level, Due due) {
		enqueue(operations, id, level, due, DuplicatePolicy.KEEP);
	}

	private static void enqueue(RedisJobQueueOperations operations, String id, int level, Due due,
			DuplicatePolicy policy) {
		operations.getEnqueueOperations()
			.enqueue(QUEUE, List.of(new EnqueueCommand(id, due, policy, PriorityIntegrationTests.body(level))));
	}

	/**
	 * Return operations on the same Redis with the scripts of data model 4 as they were
	 * before priority levels.
	 */
	private RedisJobQueueOperations olderScripts() {
		return ScriptsBeforeLevels.operations(this.template.getRequiredConnectionFactory(),
				RedisJobQueueOperations.DEFAULT_KEY_PREFIX);
	}

}
