package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for jobs whose lease expires before their run started: a lost reserve reply, or
 * jobs reserved ahead by an instance that stalls. They run, without using an attempt, and
 * another instance takes them once their lease expired. Against a real Redis, with
 * containers.
 *
 * @author Redq team
 */
@WithRedis
class StallIntegrationTests {

	private static final String QUEUE = "stalls";

	/** What jobs reserved ahead by an instance that stalls wait out. */
	private static final Duration LEASE_TIME = Duration.ofSeconds(3);

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private final RedisServer redis;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private final List<JobListenerContainer> containers = new ArrayList<>();

	private final CountDownLatch release = new CountDownLatch(1);

	private RedisJobQueueOperations operations;

	StallIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void setUp() {
		this.redis.flushAll();
		this.operations = operations();
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.containers.forEach(JobListenerContainer::stop);
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void aJobOfOneAttemptWhoseReserveReplyWasLostRunsLaterAndCompletes() {
		List<String> runs = new CopyOnWriteArrayList<>();
		enqueue("once", 1);
		// the reply of this reservation is lost: no worker ever starts the job
		assertThat(this.operations.getListenerOperations().reserve(QUEUE, 1, Duration.ofMillis(100)).jobs()).hasSize(1);
		start(this.operations, (payload, context) -> runs.add(context.getId() + "@" + context.getAttempt()));
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(this.operations.deadJob(QUEUE, "once")).isNull();
		assertThat(runs).containsExactly("once@1");
	}

	@Test
	void jobsReservedAheadByAnInstanceThatStallsRunOnAnotherOnceEach() {
		List<String> firstRuns = new CopyOnWriteArrayList<>();
		List<String> secondRuns = new CopyOnWriteArrayList<>();
		AtomicLong reservedAhead = new AtomicLong();
		RedisJobQueueOperations first = operations();
		QueueKeys keys = this.operations.getStore().keys(QUEUE);
		StringRedisTemplate redis = this.operations.getStore().getTemplate();
		start(first, (payload, context) -> {
			firstRuns.add(context.getId());
			if (context.getId().equals("busy")) {
				// from here on no renewal or hand-back of this instance reaches Redis
				this.connectionFactories.get(1).stop();
				// the jobs behind it reserved ahead in the same reservation: how many
				// follows from how long "warm" ran, so from the machine's load
				reservedAhead
					.set(redis.opsForZSet().count(keys.reserved(), Double.NEGATIVE_INFINITY, Double.MAX_VALUE) - 1);
				this.release.await();
			}
		});
		// a finished job tells the container how long jobs take, and so how many to
		// reserve ahead
		enqueue("warm", 3);
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
		List<EnqueueCommand> commands = new ArrayList<>();
		commands.add(command("busy", 3));
		for (int i = 0; i < 8; i++) {
			commands.add(command("ahead-" + i, 3));
		}
		this.operations.getEnqueueOperations().enqueue(QUEUE, commands);
		await().atMost(DEADLINE).until(() -> !this.connectionFactories.get(1).isRunning());
		start(this.operations, (payload, context) -> secondRuns.add(context.getId()));
		await().atMost(DEADLINE).until(() -> secondRuns.stream().filter((id) -> id.startsWith("ahead-")).count() == 8);
		assertThat(reservedAhead).as("jobs held reserved ahead by the stalled instance").hasPositiveValue();
		assertThat(firstRuns).containsExactly("warm", "busy");
		assertThat(secondRuns.stream().filter((id) -> id.startsWith("ahead-"))).doesNotHaveDuplicates();
		assertThat(this.operations.stats(QUEUE).dead()).isZero();
	}

	private RedisJobQueueOperations operations() {
		LettuceConnectionFactory connectionFactory = TestConnections.connectionFactory(this.redis);
		this.connectionFactories.add(connectionFactory);
		return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
	}

	private void start(RedisJobQueueOperations operations, StringJobHandler.Handling handling) {
		ContainerProperties properties = new ContainerProperties();
		properties.setConcurrency(1);
		properties.setPrefetch(8);
		properties.setLeaseTime(LEASE_TIME);
		properties.setShutdownTimeout(Duration.ofMillis(100));
		JobHandler handler = new StringJobHandler(new JobDefinition("test", QUEUE, 3, Duration.ZERO,
				new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO), String.class), handling);
		JobListenerContainer container = new JobListenerContainer(QUEUE, operations.getListenerOperations(),
				JsonMapper.shared(), List.of(handler), properties);
		this.containers.add(container);
		container.start();
	}

	private void enqueue(String id, int maxAttempts) {
		this.operations.getEnqueueOperations().enqueue(QUEUE, List.of(command(id, maxAttempts)));
	}

	private static EnqueueCommand command(String id, int maxAttempts) {
		return new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"test\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"x\"}");
	}

}
