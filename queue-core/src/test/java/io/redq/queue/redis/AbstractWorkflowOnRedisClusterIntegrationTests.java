package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture of the tests of workflows on a three-node Redis Cluster started by the test
 * on 127.0.0.1: a flushed cluster per test, a dispatcher of the given jobs, and the steps
 * of a worker and of movers that the tests take by hand.
 *
 * @author Redq team
 */
abstract class AbstractWorkflowOnRedisClusterIntegrationTests {

	static final Duration LEASE = Duration.ofSeconds(30);

	@AutoClose
	private static RedisCluster cluster;

	private final String keyPrefix;

	private final JobDefinition[] jobs;

	private LettuceConnectionFactory connectionFactory;

	RedisJobQueueOperations operations;

	ListenerOperations listener;

	StringRedisTemplate template;

	RedisJobDispatcher dispatcher;

	/**
	 * Create a test of workflows on the cluster.
	 * @param keyPrefix the prefix of the keys
	 * @param jobs the jobs the dispatcher knows
	 */
	AbstractWorkflowOnRedisClusterIntegrationTests(String keyPrefix, JobDefinition... jobs) {
		this.keyPrefix = keyPrefix;
		this.jobs = jobs;
	}

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@BeforeEach
	void connect() {
		cluster.masters().forEach(RedisServer::flushAll);
		this.connectionFactory = TestConnections.connectionFactory(cluster);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace(this.keyPrefix));
		this.listener = this.operations.getListenerOperations();
		this.template = this.operations.getStore().getTemplate();
		this.dispatcher = new RedisJobDispatcher(this.operations, TestJobDefinitions.of(this.jobs),
				JsonMapper.shared());
	}

	@AfterEach
	void disconnect() {
		this.dispatcher.stop();
		this.connectionFactory.destroy();
	}

	/** Succeed a job of a queue that returns nothing; return its id. */
	final String succeed(String queue) {
		return succeed(queue, null);
	}

	/** Succeed a job of a queue that returns the given JSON; return its id. */
	final String succeed(String queue, @Nullable String result) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations()
			.ack(queue, List.of(job.lease()), (result != null) ? Map.of(job.id(), result) : Map.of())).isEmpty();
		return job.id();
	}

	/** Succeed a job of a queue, then apply its hand-over twice, as two movers would. */
	final void succeedAndHandOverTwice(String queue) {
		succeed(queue);
		handOverTwice(queue);
	}

	/** Apply the one hand-over of a queue twice, as two movers would. */
	final void handOverTwice(String queue) {
		String handover = this.operations.getStore().keys(queue).handover();
		Set<String> handOvers = this.template.opsForZSet().range(handover, 0, -1);
		assertThat(handOvers).hasSize(1);
		this.listener.handOver(queue);
		this.template.opsForZSet().add(handover, handOvers.iterator().next(), 0);
		this.listener.handOver(queue);
	}

	static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class);
	}

}
