package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDeadException;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests of job results on a three-node Redis Cluster started by the test on 127.0.0.1:
 * results are kept in their queue's slot and waits on queues of every node are woken, by
 * announcements on sharded channels that do not go to every node.
 *
 * @author Redq team
 */
class JobResultsOnRedisClusterIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final Duration LONG = Duration.ofMinutes(5);

	@AutoClose
	private static RedisCluster cluster;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	private JobResults results;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@BeforeEach
	void connect() {
		this.connectionFactory = TestConnections.connectionFactory(cluster);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("results"));
		this.results = new JobResults(this.operations.getStore());
	}

	@AfterEach
	void disconnect() {
		this.results.close();
		this.connectionFactory.destroy();
	}

	@Test
	void waitsOnQueuesOfEveryNodeAreWokenWithTheirResultsOrErrors() {
		ListenerOperations listener = this.operations.getListenerOperations();
		// queues on different slots, spread over the nodes
		List<String> queues = List.of("q0", "q1", "q2", "q3", "q4", "q5");
		List<CompletableFuture<Integer>> completed = new ArrayList<>();
		List<CompletableFuture<Integer>> dead = new ArrayList<>();
		List<ReservedJob> running = new ArrayList<>();
		for (String queue : queues) {
			this.operations.getEnqueueOperations().enqueue(queue, List.of(command("done"), command("dies")));
			running.addAll(listener.reserve(queue, 2, Duration.ofMinutes(1)).jobs());
			completed.add(this.results.await(queue, "done", Integer.class, LONG));
			dead.add(this.results.await(queue, "dies", Integer.class, LONG));
		}
		for (String queue : queues) {
			await().atMost(DEADLINE)
				.until(() -> this.operations.getStore()
					.getTemplate()
					.hasKey(this.operations.getStore().keys(queue).waiting()));
		}
		assertThat(completed).noneMatch(CompletableFuture::isDone);
		for (int i = 0; i < queues.size(); i++) {
			String queue = queues.get(i);
			for (ReservedJob job : running.subList(2 * i, 2 * i + 2)) {
				if (job.id().equals("done")) {
					listener.getLeaseOperations().ack(queue, List.of(job.lease()), Map.of("done", Integer.toString(i)));
				}
				else {
					listener.getLeaseOperations().fail(queue, job.lease(), "no luck on " + queue, null);
				}
			}
		}
		for (int i = 0; i < queues.size(); i++) {
			assertThat(completed.get(i)).succeedsWithin(DEADLINE).isEqualTo(i);
			String queue = queues.get(i);
			assertThat(dead.get(i)).failsWithin(DEADLINE)
				.withThrowableThat()
				.havingCause()
				.isInstanceOfSatisfying(JobDeadException.class,
						(ex) -> assertThat(ex.getError()).isEqualTo("no luck on " + queue));
		}
	}

	@Test
	void aWakeUpIsPublishedOnTheNodesOfItsQueuesSlotOnly() throws InterruptedException {
		String channel = this.operations.getStore().keys("q0").waiting();
		RedisServer owner = cluster.masterOf(channel);
		assumeTrue(Integer.parseInt(owner.version().split("\\.")[0]) >= 7, "sharded pub/sub needs Redis 7");
		RedisServer other = cluster.masters().stream().filter((node) -> node != owner).findFirst().orElseThrow();
		RedisClient client = RedisClient.create(RedisURI.create(other.host(), other.port()));
		try (StatefulRedisPubSubConnection<String, String> subscription = client.connectPubSub()) {
			BlockingQueue<String> heard = new LinkedBlockingQueue<>();
			subscription.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					heard.add(message);
				}

			});
			subscription.sync().subscribe(channel);
			ListenerOperations listener = this.operations.getListenerOperations();
			this.operations.getEnqueueOperations().enqueue("q0", List.of(command("done")));
			ReservedJob job = listener.reserve("q0", 1, Duration.ofMinutes(1)).jobs().get(0);
			CompletableFuture<Integer> result = this.results.await("q0", "done", Integer.class, LONG);
			await().atMost(DEADLINE).until(() -> this.operations.getStore().getTemplate().hasKey(channel));
			listener.getLeaseOperations().ack("q0", List.of(job.lease()), Map.of("done", "7"));
			assertThat(result).succeedsWithin(DEADLINE).isEqualTo(7);
			// a plain PUBLISH reaches every node, after any announcement made before it
			owner.command("PUBLISH", channel, "marker");
			assertThat(heard.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("marker");
		}
		finally {
			client.shutdown();
		}
	}

	private static EnqueueCommand command(String id) {
		return new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"quote\",\"maxAttempts\":1,\"timeout\":0,\"payload\":1}");
	}

}
