package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests that a dispatch, and a cancel or reschedule of a timer, fails after the
 * dispatcher's own timeout while Redis is down or frozen, instead of blocking for
 * Lettuce's command timeout (one minute), and that a call that timed out runs at most
 * once when Redis is back, against a real Redis process of the test's own.
 *
 * @author Redq team
 */
class DispatchTimeoutIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	/** Well below Lettuce's command timeout of one minute, well above the timeout. */
	private static final Duration FAST = Duration.ofSeconds(30);

	private static final String MESSAGE = "Redis did not take 1 job(s) of queue 'mail' within 500 ms "
			+ "(redq.dispatcher.timeout): it is down, unreachable or overloaded. The call is not cancelled: the jobs "
			+ "may still be enqueued if Redis takes it before the Redis command timeout (spring.data.redis.timeout). "
			+ "Check that Redis is up and reachable. To dispatch again without adding a second job, dispatch under "
			+ "the same job id (JobRequest.id, DuplicatePolicy.KEEP): a job still pending is kept";

	private RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.redis = RedisServer.local().start();
		this.connectionFactory = TestConnections.connectionFactory(this.redis);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		this.dispatcher = new RedisJobDispatcher(this.operations, catalog(), JsonMapper.shared());
		this.dispatcher.setTimeout(TIMEOUT);
		// connected before Redis goes away, as in an application that ran a while
		this.dispatcher.dispatch(JobRequest.of("send-mail", "first").id("first").build());
	}

	private static JobCatalog catalog() {
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("send-mail", "mail", 3, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		return catalog;
	}

	@AfterEach
	void tearDown() {
		this.redis.resume();
		this.dispatcher.stop();
		this.connectionFactory.destroy();
		this.redis.close();
	}

	@Test
	void dispatchToAFrozenRedisFailsWithinItsTimeoutAndEachTimedOutCallRunsOnceWhenRedisIsBack()
			throws InterruptedException {
		this.redis.pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(DispatchTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()))
			.withMessage(MESSAGE);
		CompletableFuture<DispatchResult> async = this.dispatcher
			.dispatchAsync(JobRequest.of("send-mail", "b").id("b").build());
		assertThat(async).failsWithin(FAST)
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(DispatchTimeoutException.class)
			.withMessage(MESSAGE);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST.multipliedBy(2));
		this.redis.resume();
		await().atMost(FAST).until(() -> "3".equals(this.redis.command("LLEN", "redq:{mail}:ready")));
		assertThat(this.redis.command("LRANGE", "redq:{mail}:ready", "0", "-1")).isEqualTo("first\na\nb");
		// both calls were in flight at once, so each had a lane of its own: a lane taken
		// again before its call's reply could have had the old call re-sent after the new
		assertThat(this.redis.command("KEYS", "redq:{mail}:sent:*").lines()).hasSize(2);
		assertThat(this.dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()).outcome())
			.isEqualTo(Outcome.KEPT);
		assertThat(this.redis.command("HLEN", "redq:{mail}:jobs")).isEqualTo("3");
	}

	@Test
	void dispatchToAStoppedRedisFailsWithinItsTimeoutAndRunsOnceWhenRedisIsBack() {
		this.redis.kill();
		long start = System.nanoTime();
		assertThatExceptionOfType(DispatchTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()))
			.withMessage(MESSAGE);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
		this.redis.restart();
		// Lettuce sends the call it held once it reconnects
		await().atMost(FAST.multipliedBy(2))
			.until(() -> "1".equals(this.redis.command("HEXISTS", "redq:{mail}:jobs", "a")));
		assertThat(this.dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()).outcome())
			.isEqualTo(Outcome.KEPT);
		assertThat(this.redis.command("LRANGE", "redq:{mail}:ready", "0", "-1")).endsWith("a").containsOnlyOnce("a");
	}

	@Test
	void theFirstDispatchToAShardedQueueFailsWithinItsTimeoutWhileRedisIsFrozenAndRunsOnceWhenRedisIsBack() {
		// another instance chose and stored the queue's three shards
		RedisJobQueueOperations other = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		other.getStore().setShards("mail", 3);
		other.getStore().queueShards().shards("mail");
		// this one is told the same count, and has not read the placement yet
		RedisJobQueueOperations sharded = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		sharded.getStore().setShards("mail", 3);
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(sharded, catalog(), JsonMapper.shared());
		dispatcher.setTimeout(TIMEOUT);
		this.redis.pause();
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(DispatchTimeoutException.class)
					.isThrownBy(() -> dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()))
					.withMessage(MESSAGE));
		this.redis.resume();
		await().atMost(FAST).until(() -> other.status("mail", "a").state() == JobStatus.State.READY);
		assertThat(dispatcher.dispatch(JobRequest.of("send-mail", "a").id("a").build()).outcome())
			.isEqualTo(Outcome.KEPT);
		assertThat(other.stats("mail").ready()).isEqualTo(2);
		dispatcher.stop();
	}

	@Test
	void cancellingAndReschedulingTimersOfAFrozenRedisFailWithinTheTimeoutAndTakeEffectWhenRedisIsBack() {
		Instant inAnHour = Instant.now().plus(Duration.ofHours(1));
		this.dispatcher.schedule("send-mail", "42", inAnHour);
		this.dispatcher.schedule("send-mail", "43", inAnHour);
		Instant later = inAnHour.plus(Duration.ofHours(1));
		// told the queue's shards, the dispatcher reads no stored placement first: the
		// calls that time out were sent
		this.operations.getStore().setShards("mail", 1);
		this.redis.pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.cancelTimer("send-mail", "42"))
			.withMessageStartingWith("Redis did not answer within 500 ms when asked to "
					+ "cancel job 'send-mail:42' of queue 'mail': it is down, unreachable or overloaded.");
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.reschedule("send-mail", "43", later))
			.withMessageStartingWith("Redis did not answer within 500 ms when asked to "
					+ "move job 'send-mail:43' of queue 'mail' to a new due time");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
		this.redis.resume();
		await().atMost(FAST).until(() -> "0".equals(this.redis.command("HEXISTS", "redq:{mail}:jobs", "send-mail:42")));
		await().atMost(FAST)
			.until(() -> String.valueOf(later.toEpochMilli())
				.equals(this.redis.command("ZSCORE", "redq:{mail}:delayed", "send-mail:43")));
		assertThat(this.dispatcher.cancelTimer("send-mail", "42")).isFalse();
		assertThat(this.dispatcher.findTimer("send-mail", "43")).isPresent();
	}

	@Test
	void timersOfAQueueShardedByAnotherApplicationAreFoundOnTheirShardsWithinTheTimeout() {
		// another application gives the queue three shards, which this dispatcher is not
		// told of
		RedisJobQueueOperations sharded = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		sharded.getStore().setShards("mail", 3);
		RedisJobDispatcher other = new RedisJobDispatcher(sharded, catalog(), JsonMapper.shared());
		List<String> keys = new ArrayList<>();
		for (int key = 0; keys.size() < 2; key++) {
			if (!sharded.getStore().shardChoice().shardOf("mail", "send-mail:" + key).equals("mail")) {
				keys.add(Integer.toString(key));
			}
		}
		Instant inAnHour = Instant.now().plus(Duration.ofHours(1));
		keys.forEach((key) -> other.schedule("send-mail", key, inAnHour));
		other.stop();
		this.redis.pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.cancelTimer("send-mail", keys.get(0)))
			.withMessage("Redis did not answer within 500 ms when asked to read the shards of queue 'mail': "
					+ "it is down, unreachable or overloaded");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
		this.redis.resume();
		assertThat(this.dispatcher.cancelTimer("send-mail", keys.get(0))).isTrue();
		assertThat(this.dispatcher.reschedule("send-mail", keys.get(1), inAnHour.plus(Duration.ofHours(1)))).isTrue();
		assertThat(sharded.stats("mail").delayed()).isOne();
	}

}
