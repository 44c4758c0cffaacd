package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for waiting for replicas ({@code WAIT}) on a Redis Cluster of three masters with
 * one replica each, started by the test on 127.0.0.1: each write waits for the replica of
 * the master that took it, the master of its queue's shard.
 *
 * @author Redq team
 */
class WaitForReplicasOnRedisClusterIntegrationTests {

	private static final String QUEUE = "mail";

	private static final int SHARDS = 3;

	/**
	 * How long a write waits for a replica that is up: long enough for a loaded machine,
	 * since the tests assert that it is confirmed, not how soon.
	 */
	private static final Duration REPLICA_TIMEOUT = Duration.ofMinutes(1);

	/** How long a write waits for a paused replica, which never confirms it. */
	private static final Duration PAUSED_REPLICA_TIMEOUT = Duration.ofMillis(300);

	@AutoClose
	private static RedisCluster cluster;

	private final List<RedisServer> paused = new ArrayList<>();

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	private RedisJobDispatcher dispatcher;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 1);
	}

	@BeforeEach
	void setUp() {
		cluster.masters().forEach((master) -> master.command("FLUSHALL"));
		this.connectionFactory = TestConnections.connectionFactory(cluster);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		this.operations.getStore().setShards(QUEUE, SHARDS);
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("send-mail", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		this.dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
		this.connectionFactory.destroy();
		this.paused.forEach(RedisServer::resume);
		// the next test starts with every replica in sync again
		await().atMost(Duration.ofSeconds(30))
			.until(() -> cluster.masters()
				.stream()
				.flatMap((master) -> cluster.replicasOf(master).stream())
				.allMatch((replica) -> replica.command("INFO", "replication").contains("master_link_status:up")));
	}

	@Test
	void eachDispatchReturnsOnceTheReplicaOfItsShardsMasterHasTheJob() {
		Map<RedisServer, Long> waitsBefore = waitCallsByMaster();
		Map<RedisServer, Long> dispatched = new HashMap<>();
		List<String> shards = this.operations.getStore().queueShards().shards(QUEUE);
		for (int shard = 0; shard < SHARDS; shard++) {
			// one job on the first shard, two on the second, three on the third
			for (String id : idsOn(shards.get(shard), shard + 1)) {
				this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id(id).build());
				String jobs = shardKeys().get(shard).jobs();
				RedisServer master = cluster.masterOf(jobs);
				dispatched.merge(master, 1L, Long::sum);
				// on the replica of the shard's master as the dispatch returns, not later
				assertThat(onReplicaOf(master, "HEXISTS", jobs, id)).as("%s on the replica", id).isEqualTo("1");
			}
		}
		assertThat(dispatched).as("masters of the shards").hasSize(SHARDS);
		Map<RedisServer, Long> waitsAfter = waitCallsByMaster();
		for (RedisServer master : cluster.masters()) {
			assertThat(waitsAfter.get(master) - waitsBefore.get(master))
				.as("WAIT calls on the master on port %d", master.port())
				.isEqualTo(dispatched.get(master));
		}
	}

	@Test
	void aDispatchToTheShardWhoseMastersReplicaIsPausedThrowsAndTheOthersReturn() {
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		List<String> shards = this.operations.getStore().queueShards().shards(QUEUE);
		String laggingJobs = shardKeys().get(1).jobs();
		RedisServer lagging = cluster.masterOf(laggingJobs);
		pause(cluster.replicasOf(lagging).get(0));
		String id = idsOn(shards.get(1), 1).get(0);
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id(id).build()))
			.satisfies((ex) -> assertThat(ex.getConfirmed()).isZero())
			.satisfies((ex) -> assertThat(ex.getJobIds()).containsExactly(id));
		// the job stays on the master
		assertThat(lagging.command("HEXISTS", laggingJobs, id)).isEqualTo("1");
		for (int shard : List.of(0, 2)) {
			String other = idsOn(shards.get(shard), 1).get(0);
			this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id(other).build());
			String jobs = shardKeys().get(shard).jobs();
			assertThat(onReplicaOf(cluster.masterOf(jobs), "HEXISTS", jobs, other)).isEqualTo("1");
		}
	}

	@Test
	void anAcknowledgementOnTheShardWhoseMastersReplicaIsPausedThrows() {
		String id = idsOn(this.operations.getStore().queueShards().shards(QUEUE).get(2), 1).get(0);
		this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id(id).build());
		ListenerOperations listener = this.operations.getListenerOperations();
		List<ReservedJob> jobs = new ArrayList<>();
		// the container takes from the shards in turn
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			jobs.addAll(listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs());
			return !jobs.isEmpty();
		});
		assertThat(jobs).extracting(ReservedJob::id).containsExactly(id);
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		String laggingJobs = shardKeys().get(2).jobs();
		RedisServer lagging = cluster.masterOf(laggingJobs);
		pause(cluster.replicasOf(lagging).get(0));
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> listener.getLeaseOperations().ack(QUEUE, List.of(jobs.get(0).lease())))
			.satisfies((ex) -> assertThat(ex.getJobIds()).containsExactly(id));
		// the acknowledgement stays on the master
		assertThat(lagging.command("HEXISTS", laggingJobs, id)).isEqualTo("0");
	}

	@Test // GH-41
	void aForestallOnTheShardWhoseMastersReplicaIsPausedThrowsThePlainException() {
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		String shard = this.operations.getStore().queueShards().shards(QUEUE).get(1);
		pause(cluster.replicasOf(cluster.masterOf(shardKeys().get(1).jobs())).get(0));
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> this.operations.getEnqueueOperations().forestall(shard, "call-1", Duration.ofMinutes(1)))
			.withMessageStartingWith("Redis took no job of queue '" + shard + "', but only 0 of the 1")
			// as every other write's, not ReplicaWait's own that carries the script's
			// reply
			.satisfies((ex) -> assertThat(ex).isExactlyInstanceOf(ReplicationTimeoutException.class));
	}

	@Test
	void aLockIsHandedOutOnceTheReplicaOfItsMasterHasIt() throws InterruptedException {
		RedisLockService locks = new RedisLockService(this.connectionFactory, new Keyspace("redq"));
		try {
			locks.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
			for (String name : List.of("invoice-1", "invoice-2", "invoice-3", "invoice-4")) {
				LockHandle lock = locks.tryAcquire(name, Duration.ZERO);
				assertThat(lock).isNotNull();
				String fence = "redq:lock:{" + name + "}:fence";
				assertThat(onReplicaOf(cluster.masterOf(fence), "GET", fence))
					.isEqualTo(Long.toString(lock.getFencingToken()));
			}
		}
		finally {
			locks.destroy();
		}
	}

	private void pause(RedisServer replica) {
		replica.pause();
		this.paused.add(replica);
	}

	private List<QueueKeys> shardKeys() {
		QueueStore store = this.operations.getStore();
		return store.queueShards().shards(QUEUE).stream().map(store::keys).toList();
	}

	/** Read from the replica of a master, which answers reads of its master's slots. */
	private static @Nullable String onReplicaOf(RedisServer master, String... command) {
		RedisServer replica = cluster.replicasOf(master).get(0);
		replica.command("READONLY");
		return replica.command(command);
	}

	/** Job ids that a dispatch puts on a shard. */
	private List<String> idsOn(String shard, int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; ids.size() < count; i++) {
			if (this.operations.getStore().shardChoice().shardOf(QUEUE, "mail-" + i).equals(shard)) {
				ids.add("mail-" + i);
			}
		}
		return ids;
	}

	private static Map<RedisServer, Long> waitCallsByMaster() {
		Map<RedisServer, Long> calls = new HashMap<>();
		for (RedisServer master : cluster.masters()) {
			calls.put(master, waitCalls(master));
		}
		return calls;
	}

	private static long waitCalls(RedisServer master) {
		for (String line : master.command("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_wait:calls=")) {
				return Long.parseLong(line.substring("cmdstat_wait:calls=".length(), line.indexOf(',')));
			}
		}
		return 0;
	}

}
