package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.inspect.InstanceRegistry;
import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisJobQueueOperations} on a three-node Redis Cluster started by the
 * test on 127.0.0.1.
 *
 * @author Redq team
 */
class RedisJobQueueOperationsOnRedisClusterIntegrationTests {

	@AutoClose
	private static RedisCluster cluster;

	private LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@BeforeEach
	void connect() {
		this.connectionFactory = TestConnections.connectionFactory(cluster);
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void aBatchWhoseMembersAndCallbackLiveOnOtherSlotsEndsOnce() {
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("test"));
		ListenerOperations listener = operations.getListenerOperations();
		JobCatalog catalog = new JobCatalog();
		List<String> queues = List.of("q0", "q1", "q2", "q3", "q4", "q5");
		for (String queue : queues) {
			catalog.register(new JobDefinition("job-" + queue, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, null));
		}
		catalog.register(new JobDefinition("done", "callbacks", 1, Duration.ZERO, JobBackoff.DEFAULT, null));
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(operations, catalog, JsonMapper.shared());
		BatchResult batch = dispatcher.dispatchBatch(
				BatchRequest.of(queues.stream().map((queue) -> JobRequest.of("job-" + queue, queue).build()).toList())
					.onSuccess(JobRequest.of("done", "all").build())
					.build());
		for (String queue : queues) {
			ReservedJob job = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
			assertThat(listener.getLeaseOperations().ack(queue, List.of(job.lease()))).isEmpty();
		}
		// every migrator hands its queue's completion over, twice
		for (int pass = 0; pass < 2; pass++) {
			for (String queue : queues) {
				listener.handOver(queue);
			}
		}
		assertThat(dispatcher.findBatch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(operations.stats("callbacks").ready()).isEqualTo(1);
		dispatcher.stop();
	}

	@Test
	void purgeFindsEveryKeyOfAQueueOnTheNodeThatServesItsSlot() {
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("test"));
		ListenerOperations listener = operations.getListenerOperations();
		StringRedisTemplate template = new StringRedisTemplate(this.connectionFactory);
		// queues on different slots, spread over the nodes
		List<String> queues = List.of("q0", "q1", "q2", "q3", "q4", "q5");
		Gates gates = new Gates("account-1", "ship", 1, 1, null);
		for (String queue : queues) {
			operations.getEnqueueOperations()
				.enqueue(queue, List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP,
						"\"job\":\"ship\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}")));
			ReservedJob job = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
			assertThat(listener.getGateOperations().admit(queue, job.lease(), gates, Duration.ofMinutes(1))).isZero();
			template.opsForHash().put(operations.getStore().keys(queue).recurring("nightly"), "last", "1");
		}
		try (RedisClusterConnection connection = this.connectionFactory.getClusterConnection()) {
			assertThat(queues.stream()
				.map((queue) -> connection
					.clusterGetNodeForKey(operations.getStore().keys(queue).ready().getBytes(StandardCharsets.UTF_8)))
				.distinct()).as("nodes of the queues").hasSizeGreaterThan(1);
		}
		for (String queue : queues) {
			operations.purge(queue);
			QueueKeys keys = operations.getStore().keys(queue);
			// and the hold of the run still going on
			assertThat(template.keys("test:{" + queue + "}:*")).as("besides the replies kept for re-sent calls")
				.filteredOn((key) -> !keys.isSent(key))
				.containsExactlyInAnyOrder(keys.sequence(), keys.model(), keys.holding(), keys.held());
		}
	}

	@Test
	void anIdleContainerReservesOnTheNodeThatServesItsQueueAsTheWakeUpComes() throws Exception {
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("test"));
		ListenerOperations listener = operations.getListenerOperations();
		for (String queue : List.of("w0", "w1", "w2", "w3")) {
			assertThat(listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs()).isEmpty();
			try (RedisConnection connection = listener.openWakeUpConnection()) {
				CompletableFuture<Reservation> waiting = CompletableFuture.supplyAsync(() -> listener
					.reserveOnWakeUp(connection, queue, 1, Duration.ofMinutes(1), Duration.ofSeconds(30)));
				operations.getEnqueueOperations()
					.enqueue(queue, List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP,
							"\"job\":\"ship\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}")));
				assertThat(waiting.get(30, TimeUnit.SECONDS).jobs()).extracting(ReservedJob::id).containsExactly("a");
			}
		}
	}

	@Test
	void theInspectorFindsTheQueuesOfEveryMasterAndListsTheInstances() {
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("test"));
		List<String> queues = List.of("d0", "d1", "d2", "d3", "d4", "d5");
		for (String queue : queues) {
			operations.getEnqueueOperations()
				.enqueue(queue, List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP,
						"\"job\":\"ship\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}")));
		}
		JobQueueInspector inspector = new JobQueueInspector(operations, new JobCatalog());
		inspector.setDiscoveryInterval(Duration.ZERO);
		InstanceRegistry instances = new InstanceRegistry(operations);
		inspector.setInstances(instances);
		instances.heartbeat(new InstanceView("a", "app", "host", 1, Instant.now(), Instant.now(),
				List.of(new InstanceView.ConsumedQueue("consumed", 1, 0, true))), Duration.ofMinutes(1));
		// each listing is a bounded round of the scan, which goes over every master
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(inspector.queueNames()).containsAll(queues).contains("consumed"));
		assertThat(inspector.instances()).extracting(InstanceView::id).containsExactly("a");
	}

}
