package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.DataModelMismatchException;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.RateLimit;
import io.redq.queue.inspect.JobPage;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.QueueStatistics;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of a sharded queue on a single Redis, where its shards are distinct hash tags on
 * one server.
 *
 * @author Redq team
 */
@WithRedis
class ShardedQueueIntegrationTests extends AbstractShardedQueueIntegrationTests {

	private RedisServer redis;

	@BeforeEach
	void empty(RedisServer redis) {
		this.redis = redis;
		redis.command("FLUSHALL");
	}

	@Override
	LettuceConnectionFactory connectionFactory() {
		return TestConnections.connectionFactory(this.redis);
	}

	@Test
	void aShardNameIsNoQueueNameForTheCallers() {
		RedisJobQueueOperations operations = operations(3);
		assertThat(operations.getStore().keys(QUEUE + "{2}").ready()).startsWith("redq:shard:{" + QUEUE + "#");
		for (String name : List.of(QUEUE + "{3}", QUEUE + "{0}", QUEUE + "{x}")) {
			assertThatIllegalArgumentException().isThrownBy(() -> operations.pause(name))
				.withMessageContaining("Invalid queue name '" + name + "'");
		}
	}

	@Test
	void anAcknowledgementThatFailsOnOneShardAcknowledgesTheOthers() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		for (String shard : shards) {
			dispatcher.dispatch(JobRequest.of("work", "x").id(idOn(operations, shard, "j-")).build());
		}
		List<Lease> leases = new ArrayList<>();
		while (leases.size() < shards.size()) {
			operations.getListenerOperations()
				.reserve(QUEUE, shards.size(), Duration.ofMinutes(1))
				.jobs()
				.forEach((job) -> leases.add(job.lease()));
		}
		// the failing shard's leases first: it must not stop the others
		String failing = shards.get(1);
		leases.sort(Comparator.comparing((lease) -> !ShardNames.shardOfToken(QUEUE, lease.token()).equals(failing)));
		operations.getStore().getTemplate().opsForValue().set(operations.getStore().keys(failing).model(), "99");
		assertThatExceptionOfType(DataModelMismatchException.class)
			.isThrownBy(() -> operations.getListenerOperations().getLeaseOperations().ack(QUEUE, leases));
		for (String shard : shards) {
			assertThat(operations.getStore()
				.getTemplate()
				.opsForZSet()
				.count(operations.getStore().keys(shard).reserved(), Double.NEGATIVE_INFINITY, Double.MAX_VALUE))
				.as(shard)
				.isEqualTo(shard.equals(failing) ? 1 : 0);
		}
	}

	@Test
	void theInspectorsStatisticsAndDeadJobsAddUpTheShards() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		JobQueueInspector inspector = new JobQueueInspector(operations, definitions());
		List<String> failing = new ArrayList<>();
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			dispatcher.dispatch(JobRequest.of("work", "ok").id(idOn(operations, shard, "ok-")).build());
			failing.add(dispatcher.dispatch(JobRequest.of("work", "fail").id(idOn(operations, shard, "fail-")).build())
				.id());
		}
		start(operations, 2);
		await().atMost(DEADLINE)
			.until(() -> operations.stats(QUEUE).dead() == 3
					&& operations.stats(QUEUE).ready() + operations.stats(QUEUE).reserved() == 0);
		// the minute may turn between two runs, and the reads are a second old at most
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(inspector.minutes(QUEUE)).satisfies((minutes) -> {
			assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::completed).sum()).isEqualTo(3);
			assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::failed).sum()).isEqualTo(9);
			assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::dead).sum()).isEqualTo(3);
		}));
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(
					inspector.statistics(QUEUE).hours().stream().mapToLong(QueueStatistics.Bucket::completed).sum())
				.isEqualTo(3));
		JobPage dead = inspector.jobs(QUEUE, JobStatus.State.DEAD, 0, 10);
		assertThat(dead.total()).isEqualTo(3);
		assertThat(dead.jobs()).extracting(JobView::id).containsExactlyInAnyOrderElementsOf(failing);
		assertThat(dead.jobs()).extracting(JobView::at).isSortedAccordingTo(Comparator.reverseOrder());
		assertThat(inspector.latestDeath(QUEUE)).isEqualTo(dead.jobs().get(0).at());
		Instant cutoff = dead.jobs().get(1).at();
		assertThat(inspector.deadJobs(QUEUE, "work", "Failed on purpose", 10, cutoff).jobs()).extracting(JobView::id)
			.containsExactlyInAnyOrderElementsOf(
					dead.jobs().stream().filter((view) -> !view.at().isAfter(cutoff)).map(JobView::id).toList());
		// the retention sizes every shard's ring of hours
		inspector.setStatisticsRetention(Duration.ofHours(2));
		inspector.applyStatisticsRetention();
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			assertThat(operations.getStore()
				.getTemplate()
				.opsForHash()
				.get(operations.getStore().keys(shard).stats(), "hours")).as(shard).isEqualTo("2");
		}
	}

	@Test
	void priorityLevelsHoldPerShardAndEachReservationStartsAtTheNextShard() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> high = new ArrayList<>();
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			dispatcher.dispatch(JobRequest.of("work", "x").id(idOn(operations, shard, "low-")).priority(1).build());
			high.add(dispatcher
				.dispatch(JobRequest.of("work", "x").id(idOn(operations, shard, "high-")).priority(9).build())
				.id());
		}
		List<String> reserved = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			reserved.addAll(operations.getListenerOperations()
				.reserve(QUEUE, 1, Duration.ofMinutes(1))
				.jobs()
				.stream()
				.map(ReservedJob::id)
				.toList());
		}
		// each shard gives its higher level first, one shard per reservation in turn
		assertThat(reserved).hasSize(6);
		assertThat(reserved.subList(0, 3)).containsExactlyInAnyOrderElementsOf(high);
	}

	@Test
	void anExclusiveKeyHoldsPerShard() {
		RedisJobQueueOperations operations = operations(3);
		Map<String, Long> admits = admit(operations, new Gates("account-1", "work", 0, 0, null));
		assertThat(admits).containsOnlyKeys("a", "b", "c");
		// one run per shard holds the key: a and b share a shard, c has its own
		assertThat(admits.get("c")).isZero();
		assertThat(List.of(admits.get("a"), admits.get("b"))).containsExactlyInAnyOrder(0L, GateOperations.PARKED);
	}

	@Test
	void aRateLimitHoldsPerShard() {
		RedisJobQueueOperations operations = operations(3);
		Map<String, Long> admits = admit(operations,
				new Gates(null, "work", 0, 0, new RateLimit(1, Duration.ofHours(1))));
		assertThat(admits.get("c")).isZero();
		assertThat(Math.min(admits.get("a"), admits.get("b"))).isZero();
		assertThat(Math.max(admits.get("a"), admits.get("b"))).as("deferred for the window").isPositive();
	}

	/**
	 * Dispatch a and b to the first shard and c to the second, reserve them and let each
	 * pass the gates.
	 * @return what each admission returned by job
	 */
	private Map<String, Long> admit(RedisJobQueueOperations operations, Gates gates) {
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		Map<String, String> ids = Map.of("a", idOn(operations, shards.get(0), "a-"), "b",
				idOn(operations, shards.get(0), "b-"), "c", idOn(operations, shards.get(1), "c-"));
		ids.forEach((name, id) -> dispatcher.dispatch(JobRequest.of("work", "x").id(id).build()));
		List<ReservedJob> reserved = operations.getListenerOperations().reserve(QUEUE, 3, Duration.ofMinutes(1)).jobs();
		assertThat(reserved).hasSize(3);
		Map<String, Long> admits = new HashMap<>();
		ids.forEach((name, id) -> {
			ReservedJob job = reserved.stream().filter((each) -> each.id().equals(id)).findFirst().orElseThrow();
			admits.put(name,
					operations.getListenerOperations()
						.getGateOperations()
						.admit(QUEUE, job.lease(), gates, Duration.ofMinutes(1)));
		});
		return admits;
	}

	@Test
	void purgeEmptiesEveryShard() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			dispatcher.dispatch(JobRequest.of("work", "x").id(idOn(operations, shard, "now-")).build());
			dispatcher.dispatch(JobRequest.of("work", "x")
				.id(idOn(operations, shard, "later-"))
				.delay(Duration.ofHours(1))
				.build());
		}
		assertThat(operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 3, 0, 0));
		operations.purge(QUEUE);
		assertThat(operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			assertThat(operations.getStore().getTemplate().opsForHash().size(operations.getStore().keys(shard).jobs()))
				.as(shard)
				.isZero();
		}
	}

	@Override
	boolean distinctOwners(QueueStore store, List<String> keys) {
		// one server owns every key
		return true;
	}

}
