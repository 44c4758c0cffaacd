package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobProgress;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what running jobs keep across their attempts on a three-node Redis Cluster
 * started by the test on 127.0.0.1: their progress hash lives in their queue's slot, so
 * that the scripts that write it and the acknowledgement that deletes it (beside a
 * result) touch one slot.
 *
 * @author Redq team
 */
class JobProgressOnRedisClusterIntegrationTests {

	@AutoClose
	private static RedisCluster cluster;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@BeforeEach
	void connect() {
		this.connectionFactory = TestConnections.connectionFactory(cluster);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("progress"));
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void progressOnQueuesOfEveryNodeOutlivesAFailedAttemptAndGoesWithTheCompletion() {
		ListenerOperations listener = this.operations.getListenerOperations();
		// queues on different slots, spread over the nodes
		for (String queue : List.of("q0", "q1", "q2", "q3", "q4", "q5")) {
			this.operations.getEnqueueOperations()
				.enqueue(queue, List.of(new EnqueueCommand("long", Due.NOW, DuplicatePolicy.KEEP,
						"\"job\":\"import\",\"maxAttempts\":2,\"timeout\":0,\"payload\":1}")));
			ReservedJob first = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
			long tag = JobEnvelope.read(first.envelope()).createdAt();
			assertThat(
					listener.getProgressOperations()
						.writeProgress(queue, first.lease(), tag, Map.of(ProgressFields.FRACTION, "0.25",
								ProgressFields.MESSAGE, "a quarter on " + queue, ProgressFields.CURSOR, "25")))
				.isTrue();
			assertThat(listener.getLeaseOperations().fail(queue, first.lease(), "interrupted", Duration.ZERO)).isTrue();
			assertThat(this.operations.progress(queue, "long"))
				.isEqualTo(new JobProgress(0.25, "a quarter on " + queue, "25"));
			// a run that lost its lease writes nothing
			assertThat(listener.getProgressOperations()
				.writeProgress(queue, first.lease(), tag, Map.of(ProgressFields.CURSOR, "0"))).isFalse();

			ReservedJob second = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
			assertThat(second.attempt()).isEqualTo(2);
			assertThat(
					listener.getProgressOperations().readProgress(queue, "long", tag, List.of(ProgressFields.CURSOR)))
				.isEqualTo(Map.of(ProgressFields.CURSOR, "25"));
			assertThat(listener.getLeaseOperations()
				.ack(queue, List.of(second.lease()), Map.of("long", "\"imported\""), Set.of("long"))).isEmpty();
			assertThat(this.operations.getStore()
				.getTemplate()
				.hasKey(this.operations.getStore().keys(queue).progress("long"))).isFalse();
			assertThat(this.operations.getStore()
				.getTemplate()
				.opsForValue()
				.get(this.operations.getStore().keys(queue).result("long"))).isEqualTo("\"imported\"");
		}
	}

}
