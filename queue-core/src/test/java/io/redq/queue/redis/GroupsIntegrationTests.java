package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobPriority;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for groups in the scripts (see "Priorities and groups" in {@code common.lua}):
 * within a level the groups that have ready jobs take turns, and a group without ready
 * jobs leaves nothing behind.
 *
 * @author Redq team
 */
class GroupsIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@Test
	void theGroupsOfALevelTakeTurnsAndEachKeepsItsOrder() {
		for (int i = 1; i <= 4; i++) {
			enqueue("a" + i, 9, "a");
		}
		enqueue("b1", 9, "b");
		enqueue("b2", 9, "b");
		enqueue("c1", 9, "c");
		assertThat(reserveOneByOne(7)).containsExactly("a1", "b1", "c1", "a2", "b2", "a3", "a4");
		assertThat(this.template.opsForHash().keys(this.keys.fair())).as("no group is left behind")
			.noneMatch((field) -> ((String) field).startsWith("g") || ((String) field).startsWith("c"));
	}

	@Test
	void aGroupThatComesLaterStartsAtTheCurrentRoundNotBehindTheBacklog() {
		List<EnqueueCommand> commands = new ArrayList<>();
		for (int i = 0; i < 100_000; i++) {
			commands
				.add(new EnqueueCommand("big-" + i, Due.NOW, DuplicatePolicy.KEEP, body(JobPriority.DEFAULT, "big")));
			if (commands.size() == 1000) {
				this.enqueuer.enqueue(QUEUE, commands);
				commands.clear();
			}
		}
		assertThat(reserveOneByOne(10)).allMatch((id) -> id.startsWith("big-"));
		enqueue("small", JobPriority.DEFAULT, "small");
		enqueue("plain", JobPriority.DEFAULT, null);
		// three lines have jobs at the default level: the groups big and small, and the
		// ready list of jobs without a group
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isEqualTo(2);
		assertThat(reserveOneByOne(3)).contains("small", "plain");
	}

	@Test
	void jobsWithoutAGroupTakeTheirTurnAsOneGroupAtTheDefaultLevel() {
		for (int i = 1; i <= 3; i++) {
			enqueue("plain" + i, JobPriority.DEFAULT, null);
			enqueue("t" + i, JobPriority.DEFAULT, "tenant");
		}
		List<String> order = reserveOneByOne(6);
		assertThat(order).containsExactlyInAnyOrder("plain1", "plain2", "plain3", "t1", "t2", "t3");
		for (int i = 0; i < 6; i += 2) {
			assertThat(order.subList(i, i + 2)).as("turn " + (i / 2))
				.anyMatch((id) -> id.startsWith("plain"))
				.anyMatch((id) -> id.startsWith("t"));
		}
	}

	@Test
	void aRetriedOrCancelledJobKeepsItsGroupsCountsRight() {
		enqueue("a1", 7, "a");
		enqueue("a2", 7, "a");
		enqueue("b1", 7, "b");
		assertThat(this.operations.cancel(QUEUE, "a2")).isTrue();
		ReservedJob a1 = reserveOne();
		assertThat(a1.id()).isEqualTo("a1");
		assertThat(this.listener.getLeaseOperations().fail(QUEUE, a1.lease(), "boom", Duration.ofMillis(50))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate(QUEUE).dueJobs() == 1);
		assertThat(this.template.opsForHash().get(this.keys.levels(), "a1")).isEqualTo("7 a");
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isEqualTo(2);
		assertThat(reserveOneByOne(2)).containsExactlyInAnyOrder("a1", "b1");
		assertThat(this.template.opsForHash().keys(this.keys.fair()))
			.noneMatch((field) -> ((String) field).startsWith("g") || ((String) field).startsWith("c"));
		assertThat(this.operations.snapshot(QUEUE).readyGroups()).isZero();
	}

	private List<String> reserveOneByOne(int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			List<ReservedJob> jobs = this.listener.reserve(QUEUE, 1, LEASE).jobs();
			if (jobs.isEmpty()) {
				break;
			}
			ids.add(jobs.get(0).id());
		}
		return ids;
	}

	private ReservedJob reserveOne() {
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, 1, LEASE).jobs();
		assertThat(jobs).hasSize(1);
		return jobs.get(0);
	}

	private void enqueue(String id, int level, @Nullable String group) {
		this.enqueuer.enqueue(QUEUE,
				List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, body(level, group))));
	}

	static String body(int level, @Nullable String group) {
		return ((level != JobPriority.DEFAULT) ? "\"priority\":" + level + "," : "")
				+ ((group != null) ? "\"group\":\"" + group + "\"," : "")
				+ "\"job\":\"test\",\"maxAttempts\":2,\"timeout\":0,\"payload\":1}";
	}

}
