package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobLimits;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.core.RateLimit;
import io.redq.queue.script.RecurringScripts;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for priority levels in the scripts (see "Priorities" in {@code common.lua}): the
 * order of reservations, the starvation bound, and a job's level kept through everything
 * it goes through.
 *
 * @author Redq team
 */
class PriorityIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@Test
	void higherLevelsAreReservedFirstAndEqualLevelsInOrder() {
		enqueue("low-1", 0);
		enqueue("normal-1", JobPriority.DEFAULT);
		enqueue("high-1", 9);
		enqueue("low-2", 0);
		enqueue("high-2", 9);
		enqueue("normal-2", JobPriority.DEFAULT);
		enqueue("higher-1", 7);
		assertThat(this.operations.snapshot(QUEUE).readyByPriority()).containsExactly(Map.entry(9, 2L),
				Map.entry(7, 1L), Map.entry(5, 2L), Map.entry(0, 2L));
		assertThat(reserveOneByOne(7)).containsExactly("high-1", "high-2", "higher-1", "normal-1", "normal-2", "low-1",
				"low-2");
		assertThat(this.operations.stats(QUEUE).ready()).isZero();
	}

	@Test
	void aBatchTakesTheSameOrderAsSingleReservations() {
		for (int i = 0; i < 3; i++) {
			enqueue("low-" + i, 1);
			enqueue("high-" + i, 8);
		}
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).extracting(ReservedJob::id)
			.containsExactly("high-0", "high-1", "high-2", "low-0", "low-1", "low-2");
	}

	@Test
	void everyLevelGetsItsWeightsShareOfReservationsSoThatNoneStarves() {
		// 2^level of every 1,023 reservations while all ten levels have jobs
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int level = JobPriority.LOWEST; level <= JobPriority.HIGHEST; level++) {
			for (int i = 0; i < 520; i++) {
				commands.add(new EnqueueCommand(level + "-" + i, Due.NOW, DuplicatePolicy.KEEP, body(level)));
			}
			this.enqueuer.enqueue(QUEUE, commands);
			commands.clear();
		}
		Map<Integer, Integer> reserved = new HashMap<>();
		int calls = 0;
		while (reserved.values().stream().mapToInt(Integer::intValue).sum() < 1023) {
			// batches of various sizes: the shares hold across calls
			int batch = Math.min(1 + (calls++ % 13),
					1023 - reserved.values().stream().mapToInt(Integer::intValue).sum());
			for (ReservedJob job : this.listener.reserve(QUEUE, batch, LEASE).jobs()) {
				reserved.merge(Integer.parseInt(job.id().substring(0, job.id().indexOf('-'))), 1, Integer::sum);
			}
		}
		for (int level = JobPriority.LOWEST; level <= JobPriority.HIGHEST; level++) {
			assertThat(reserved.get(level)).as("level " + level).isEqualTo(1 << level);
		}
	}

	@Test
	void aLowLevelJobBehindAHighLevelBacklogWaitsAtMostTheBound() {
		for (int i = 0; i < 600; i++) {
			enqueue("high-" + i, 9);
		}
		enqueue("low", 0);
		List<String> order = reserveOneByOne(513);
		// levels 9 and 0 weigh 512 and 1: the low job gets one of every 513 reservations
		assertThat(order).contains("low");
	}

	@Test // GH-36
	void aLowLevelWaitsAtMostTheBoundWhileAMiddleLevelsJobsComeAndGo() {
		List<EnqueueCommand> backlog = new ArrayList<>();
		for (int i = 0; i < 1700; i++) {
			backlog.add(new EnqueueCommand("high-" + i, Due.NOW, DuplicatePolicy.KEEP, body(9)));
		}
		for (int i = 0; i < 4; i++) {
			backlog.add(new EnqueueCommand("low-" + i, Due.NOW, DuplicatePolicy.KEEP, body(0)));
		}
		this.enqueuer.enqueue(QUEUE, backlog);
		// a job of level 5 now and then, each reserved before the next comes
		boolean middleReady = false;
		int middle = 0;
		int others = 0;
		int longest = 0;
		for (int i = 0; i < 1700; i++) {
			if (i % 17 == 0 && !middleReady) {
				enqueue("middle-" + middle++, JobPriority.DEFAULT);
				middleReady = true;
			}
			String id = reserveOne().id();
			if (id.startsWith("low-")) {
				longest = Math.max(longest, others);
				others = 0;
			}
			else {
				middleReady &= !id.startsWith("middle-");
				others++;
			}
		}
		// levels 9, 5 and 0 weigh 512, 32 and 1: at most 544 others before each low job
		assertThat(longest).isPositive().isLessThanOrEqualTo(544);
	}

	@Test
	void aQueueAtTheDefaultLevelOnlyTouchesNoKeyOfTheLevels() {
		for (int i = 0; i < 5; i++) {
			enqueue("j" + i, JobPriority.DEFAULT);
		}
		Map<String, Long> commands = ScriptExecutions.commandsOf(this.redis,
				() -> assertThat(this.listener.reserve(QUEUE, 5, LEASE).jobs()).hasSize(5));
		// paused, queued and stale; attempts and runs; the hand-overs, while the leases
		// taken are due
		assertThat(commands).doesNotContainKey("zcount").containsEntry("exists", 6L);
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
		assertThat(this.template.hasKey(this.keys.levels())).isFalse();
		assertThat(this.template.hasKey(this.keys.fair())).isFalse();
	}

	@Test
	void aBatchOfJobsAtALevelRunsTheSameCommandsAsOneJob() {
		// the first call of a connection and of a queue runs more
		enqueueCommands(2);
		Map<String, Long> one = enqueueCommands(1);
		Map<String, Long> hundred = enqueueCommands(100);
		// one ZADD to queued and one to wake a listener
		assertThat(hundred).isEqualTo(one).containsEntry("zadd", 2L).containsEntry("hmget", 1L);
	}

	@Test
	void aDelayedJobBecomesReadyAtItsLevel() {
		enqueue("normal", JobPriority.DEFAULT);
		this.enqueuer.enqueue(QUEUE, List
			.of(new EnqueueCommand("timer", Due.at(Instant.now().plusMillis(200)), DuplicatePolicy.KEEP, body(8))));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(reserveOneByOne(2)).containsExactly("timer", "normal");
	}

	@Test
	void aRetriedJobComesBackAtItsLevel() {
		enqueue("high", 9);
		ReservedJob high = reserveOne();
		enqueue("normal", JobPriority.DEFAULT);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, high.lease(), "boom", Duration.ZERO)).isTrue();
		assertThat(reserveOneByOne(1)).containsExactly("high");
		assertThat(this.listener.getLeaseOperations()
			.fail(QUEUE, this.lastReserved.lease(), "boom", Duration.ofMillis(100))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(reserveOneByOne(2)).containsExactly("high", "normal");
	}

	@Test
	void aJobWhoseLeaseExpiredOrThatWasReleasedComesBackAtTheHeadOfItsLevel() {
		enqueue("high", 9);
		assertThat(this.listener.reserve(QUEUE, 1, Duration.ofMillis(100)).jobs()).hasSize(1);
		enqueue("high-later", 9);
		enqueue("normal", JobPriority.DEFAULT);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		assertThat(reserveOneByOne(1)).containsExactly("high");
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(this.lastReserved.lease()), true)).isOne();
		assertThat(reserveOneByOne(3)).containsExactly("high", "high-later", "normal");
	}

	@Test
	void aParkedJobIsWokenAtItsLevel() {
		for (Gates gates : List.of(new Gates("key", "test", 0, 0, null), new Gates(null, "test", 1, 0, null))) {
			enqueue("holder", 9);
			ReservedJob holder = reserveOne();
			assertThat(this.listener.getGateOperations().admit(QUEUE, holder.lease(), gates, LEASE)).isZero();
			enqueue("waiter", 8);
			ReservedJob waiter = reserveOne();
			assertThat(this.listener.getGateOperations().admit(QUEUE, waiter.lease(), gates, LEASE))
				.isEqualTo(GateOperations.PARKED);
			enqueue("normal", JobPriority.DEFAULT);
			// the holder leaves its gate: the waiter is woken at the head of its level
			this.listener.getGateOperations().leaveGates(QUEUE, holder.lease(), gates, Duration.ZERO, 0);
			assertThat(reserveOneByOne(2)).containsExactly("waiter", "normal");
			this.operations.purge(QUEUE);
		}
	}

	@Test
	void aJobDeferredByARateLimitComesBackAtItsLevel() {
		Gates gates = new Gates(null, "test", 0, 0, new RateLimit(1, Duration.ofMillis(100)));
		enqueue("holder", 9);
		ReservedJob holder = reserveOne();
		assertThat(this.listener.getGateOperations().admit(QUEUE, holder.lease(), gates, LEASE)).isZero();
		enqueue("waiter", 8);
		ReservedJob waiter = reserveOne();
		assertThat(this.listener.getGateOperations().admit(QUEUE, waiter.lease(), gates, LEASE)).isPositive();
		enqueue("normal", JobPriority.DEFAULT);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(reserveOneByOne(2)).containsExactly("waiter", "normal");
	}

	@Test
	void aDeadJobRetriedComesBackAtItsLevel() {
		enqueue("high", 9);
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, reserveOne().lease(), "boom", null)).isTrue();
		enqueue("normal", JobPriority.DEFAULT);
		assertThat(this.operations.retryDead(QUEUE, List.of("high"))).isOne();
		assertThat(reserveOneByOne(2)).containsExactly("high", "normal");
	}

	@Test
	void cancelAndRescheduleTakeAQueuedJobOutOfLineWithoutLeavingAnything() {
		enqueue("a", 9);
		enqueue("b", 9);
		assertThat(this.operations.cancel(QUEUE, "a")).isTrue();
		assertThat(this.operations.reschedule(QUEUE, "b", Due.after(Duration.ofHours(1)))).isTrue();
		QueueSnapshot snapshot = this.operations.snapshot(QUEUE);
		assertThat(snapshot.stats().ready()).isZero();
		assertThat(snapshot.readyByPriority()).isEmpty();
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
		assertThat(this.template.opsForHash().keys(this.keys.levels())).containsOnly("b");
		assertThat(this.template.hasKey(this.keys.stale())).isFalse();
		assertThat(this.operations.reschedule(QUEUE, "b", Due.NOW)).isTrue();
		enqueue("normal", JobPriority.DEFAULT);
		assertThat(reserveOneByOne(2)).containsExactly("b", "normal");
	}

	@Test
	void aReplacementTakesTheLevelOfItsDispatch() {
		enqueue("a", 9);
		enqueue("normal", JobPriority.DEFAULT);
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.REPLACE, body(1))));
		this.enqueuer.enqueue(QUEUE,
				List.of(new EnqueueCommand("normal", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, body(9))));
		assertThat(reserveOneByOne(2)).containsExactly("normal", "a");
		assertThat(this.template.opsForHash().get(this.keys.levels(), "a")).isEqualTo("1");
		enqueue("b", 9);
		enqueue("c", 9);
		this.enqueuer.enqueue(QUEUE,
				List.of(new EnqueueCommand("b", Due.NOW, DuplicatePolicy.REPLACE_PAYLOAD, body(JobPriority.DEFAULT))));
		assertThat(this.template.opsForHash().hasKey(this.keys.levels(), "b")).isFalse();
		assertThat(this.operations.snapshot(QUEUE).readyByPriority()).containsExactly(Map.entry(9, 1L),
				Map.entry(5, 1L));
		assertThat(reserveOneByOne(2)).containsExactly("c", "b");
	}

	@Test
	void aRecurringJobsTickIsReadyAtItsJobsLevel() {
		JobDefinition job = new JobDefinition("report", QUEUE, 1, Duration.ZERO, JobBackoff.DEFAULT, null,
				JobLimits.NONE, 8);
		RecurringOperations recurring = new RecurringOperations(this.operations, RecurringScripts.load());
		JobCatalog catalog = new JobCatalog();
		catalog.register(job);
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		enqueue("normal", JobPriority.DEFAULT);
		PreparedJob tick = dispatcher.prepare(JobRequest.of("report", null).id("tick").build());
		assertThat(recurring.tick(tick, recurring.keys(job), 1, false).enqueued()).isTrue();
		assertThat(reserveOneByOne(2)).containsExactly("tick", "normal");
	}

	@Test
	void aCompletedJobLeavesNothingOfItsLevelBehind() {
		enqueue("a", 9);
		ReservedJob job = reserveOne();
		assertThat(job.envelope()).contains("\"priority\":9");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()))).isEmpty();
		assertThat(this.template.hasKey(this.keys.levels())).isFalse();
		assertThat(this.template.hasKey(this.keys.queued())).isFalse();
	}

	private ReservedJob lastReserved;

	/**
	 * Dispatch a batch of new jobs at level 9.
	 * @return the Redis commands the dispatch ran, by name
	 */
	private Map<String, Long> enqueueCommands(int jobs) {
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			commands.add(EnqueueCommand.withGeneratedId(jobs + "-" + i, Due.NOW, body(9)));
		}
		return ScriptExecutions.commandsOf(this.redis, () -> this.enqueuer.enqueue(QUEUE, commands));
	}

	private List<String> reserveOneByOne(int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			List<ReservedJob> jobs = this.listener.reserve(QUEUE, 1, LEASE).jobs();
			if (jobs.isEmpty()) {
				break;
			}
			this.lastReserved = jobs.get(0);
			ids.add(this.lastReserved.id());
		}
		return ids;
	}

	private ReservedJob reserveOne() {
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 1, LEASE).jobs();
		assertThat(jobs).hasSize(1);
		return jobs.get(0);
	}

	private void enqueue(String id, int level) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, body(level))));
	}

	static String body(int level) {
		return ((level != JobPriority.DEFAULT) ? "\"priority\":" + level + "," : "")
				+ "\"job\":\"test\",\"maxAttempts\":2,\"timeout\":0,\"payload\":1}";
	}

}
