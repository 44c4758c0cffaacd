package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests that the calls that look for a job by its id in the shards of a sharded queue,
 * the reads of its counts, dead jobs and pause, its changes and the cancels of workflows
 * answer within the caller's timeout while the master of one shard does not answer
 * (frozen with {@code SIGSTOP}, or taking no writes with {@code CLIENT PAUSE}), instead
 * of waiting for Lettuce's command timeout (one minute), on a three-master Redis Cluster
 * started by the test on 127.0.0.1.
 *
 * @author Redq team
 */
class ShardedReadTimeoutOnRedisClusterIntegrationTests {

	private static final String QUEUE = "mail";

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	/** Well below Lettuce's command timeout of one minute, well above the timeout. */
	private static final Duration FAST = Duration.ofSeconds(20);

	@AutoClose
	private static RedisCluster cluster;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	private QueueStore store;

	private RedisJobDispatcher dispatcher;

	@BeforeAll
	static void startCluster() {
		// no master is taken for failed while a test holds it stopped: the cluster serves
		// the other slots throughout, and every slot again once it resumes
		cluster = RedisCluster.start(3, 0, "--cluster-node-timeout", "300000");
	}

	@BeforeEach
	void connect() {
		cluster.masters().forEach(RedisServer::flushAll);
		this.connectionFactory = TestConnections.connectionFactory(cluster);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		this.operations.setTimeout(TIMEOUT);
		this.store = this.operations.getStore();
		this.store.setShards(QUEUE, 3);
		this.dispatcher = new RedisJobDispatcher(this.operations,
				TestJobDefinitions.of(
						new JobDefinition("send-mail", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class),
						new JobDefinition("send-sms", "sms", 3, Duration.ZERO, JobBackoff.DEFAULT, String.class)),
				JsonMapper.shared());
		this.dispatcher.setTimeout(TIMEOUT);
		// the placement is chosen and every shard's keys known before a master stops, as
		// in an application that ran a while
		this.store.queueShards().shards(QUEUE).forEach(this.store::keys);
		assertThat(this.store.queueShards().shards(QUEUE).stream().map(this::masterOf).distinct()).hasSize(3);
	}

	@AfterEach
	void disconnect() {
		cluster.masters().forEach(RedisServer::resume);
		cluster.masters().forEach((master) -> master.command("CLIENT", "UNPAUSE"));
		this.dispatcher.stop();
		this.connectionFactory.destroy();
	}

	@Test
	void waitingForTheResultOfAJobWhoseShardDoesNotAnswerEndsWithinItsTimeout() {
		String id = idOffTheFirstShard();
		masterOf(this.store.shardChoice().shardOf(QUEUE, id)).pause();
		try (JobResults results = new JobResults(this.store)) {
			assertTimeoutPreemptively(FAST,
					() -> assertThat(results.await(QUEUE, id, String.class, TIMEOUT)).failsWithin(FAST)
						.withThrowableOfType(ExecutionException.class)
						.havingCause()
						.isInstanceOf(QueryTimeoutException.class)
						.withMessage("Redis did not answer within 500 ms when asked to find the shard of queue "
								+ "'mail' that holds job '" + id + "': it is down, unreachable or overloaded"));
		}
	}

	@Test
	void findingATimerWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String key = idOffTheFirstShard();
		masterOf(this.store.shardChoice().shardOf(QUEUE, "send-mail:" + key)).pause();
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> this.dispatcher.findTimer("send-mail", key))
					.withMessage("Redis did not answer within 500 ms when asked to read the status of job 'send-mail:"
							+ key + "' of queue 'mail': it is down, unreachable or overloaded"));
	}

	@Test
	void cancellingABatchWhoseMemberIsOnAShardThatDoesNotAnswerFailsWithinTheTimeout() {
		BatchResult batch = untilApart(
				() -> this.dispatcher
					.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("send-mail", "a").build())).build()),
				(dispatched) -> this.store.getKeyspace().batch(dispatched.batchId()).meta(),
				(dispatched) -> shardHolding(dispatched.members().get(0).id()));
		masterOf(shardHolding(batch.members().get(0).id())).pause();
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> this.dispatcher.cancelBatch(batch.batchId()))
					.withMessageStartingWith("Redis did not answer within 500 ms when asked to find the shard of "
							+ "queue 'mail' that holds job '" + batch.members().get(0).id() + "'"));
	}

	@Test
	void cancellingAChainWhoseStepIsOnAShardThatDoesNotAnswerFailsWithinTheTimeout() {
		ChainResult chain = untilApart(
				() -> this.dispatcher.dispatchChain(ChainRequest
					.of(JobRequest.of("send-mail", "a").build(), JobRequest.of("send-mail", "b").build())
					.build()),
				(dispatched) -> this.store.getKeyspace().chain(dispatched.chainId()),
				(dispatched) -> shardHolding(dispatched.stepIds().get(0)));
		masterOf(shardHolding(chain.stepIds().get(0))).pause();
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> this.dispatcher.cancelChain(chain.chainId()))
					.withMessageStartingWith("Redis did not answer within 500 ms when asked to find the shard of "
							+ "queue 'mail' that holds job '" + chain.stepIds().get(0) + "'"));
	}

	@Test
	void cancellingABatchWhoseOwnKeysAreOnAMasterThatDoesNotAnswerFailsWithinTheTimeout() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("send-mail", "a").build())).build());
		cluster.masterOf(this.store.getKeyspace().batch(batch.batchId()).meta()).pause();
		assertTimesOut(() -> this.dispatcher.cancelBatch(batch.batchId()), "cancel batch '" + batch.batchId() + "'");
	}

	@Test
	void cancellingAChainWhoseOwnKeyIsOnAMasterThatDoesNotAnswerFailsWithinTheTimeout() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest.of(JobRequest.of("send-mail", "a").build(), JobRequest.of("send-mail", "b").build())
					.build());
		cluster.masterOf(this.store.getKeyspace().chain(chain.chainId())).pause();
		assertTimesOut(() -> this.dispatcher.cancelChain(chain.chainId()), "cancel chain '" + chain.chainId() + "'");
	}

	@Test
	void cancellingABatchBeingCreatedWhileAShardOfItsMembersQueueDoesNotAnswerFailsWithinTheTimeout() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("send-mail", "a").build())).build());
		// its members' enqueues are forestalled in every shard of their queue
		aShardMasterApartFrom(this.store.getKeyspace().batch(batch.batchId()).meta()).pause();
		assertTimesOut(
				() -> this.operations.getBatchOperations()
					.getCancelOperations()
					.cancel(batch.batchId(), TIMEOUT, "creation"),
				"forestall the enqueues of the members of cancelled batch '" + batch.batchId() + "'");
	}

	@Test
	void cancellingAChainWhoseCurrentStepIsNotRecordedDeliveredWhileAShardOfItsQueueDoesNotAnswerFailsWithinTheTimeout() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest.of(JobRequest.of("send-mail", "a").build(), JobRequest.of("send-mail", "b").build())
					.build());
		String meta = this.store.getKeyspace().chain(chain.chainId());
		// as a mover leaves it that enqueued the current step and died before it recorded
		// the delivery: the cancel forestalls that enqueue in every shard of the queue
		this.store.getTemplate().opsForHash().put(meta, "s1", "undelivered");
		aShardMasterApartFrom(meta).pause();
		assertTimesOut(() -> this.dispatcher.cancelChain(chain.chainId()), "forestall the enqueue of step '"
				+ chain.stepIds().get(0) + "' of cancelled chain '" + chain.chainId() + "'");
	}

	@Test
	void cancellingAChainWhoseStepIsOnAShardThatTakesNoWritesFailsWithinTheTimeout() {
		ChainResult chain = untilApart(
				() -> this.dispatcher.dispatchChain(ChainRequest
					.of(JobRequest.of("send-mail", "a").build(), JobRequest.of("send-mail", "b").build())
					.build()),
				(dispatched) -> this.store.getKeyspace().chain(dispatched.chainId()),
				(dispatched) -> shardHolding(dispatched.stepIds().get(0)));
		String step = chain.stepIds().get(0);
		// the shard holding the step is found, and its link is then unlinked in vain
		masterOf(shardHolding(step)).command("CLIENT", "PAUSE", Long.toString(FAST.toMillis()), "WRITE");
		assertTimesOut(() -> this.dispatcher.cancelChain(chain.chainId()), "unlink the steps after step '" + step
				+ "' of cancelled chain '" + chain.chainId() + "' in queue 'mail'");
	}

	@Test
	void cancellingAChainWhoseBatchIsOnAMasterThatDoesNotAnswerFailsWithinTheTimeout() {
		RedisServer smsMaster = cluster.masterOf(this.store.keys("sms").jobs());
		// the chain's own keys and its steps' queue (of one shard) answer, its batch not
		BatchResult batch = Stream.generate(() -> this.dispatcher.dispatchBatch(BatchRequest.builder()
			.chain(ChainRequest.of(JobRequest.of("send-sms", "a").build(), JobRequest.of("send-sms", "b").build())
				.build())
			.build())).limit(30).filter((dispatched) -> {
				RedisServer master = cluster.masterOf(this.store.getKeyspace().batch(dispatched.batchId()).meta());
				return !master.equals(smsMaster) && !master
					.equals(cluster.masterOf(this.store.getKeyspace().chain(dispatched.members().get(0).id())));
			}).findFirst().orElseThrow();
		String chainId = batch.members().get(0).id();
		// a current step not recorded delivered ends the chain at once, which hands its
		// end to the batch
		this.store.getTemplate().opsForHash().put(this.store.getKeyspace().chain(chainId), "s1", "undelivered");
		cluster.masterOf(this.store.getKeyspace().batch(batch.batchId()).meta()).pause();
		assertTimesOut(() -> this.dispatcher.cancelChain(chainId), "end cancelled chain '" + chainId + "'");
	}

	@Test
	void readingWhetherAQueueWhoseFirstShardDoesNotAnswerIsPausedFailsWithinTheTimeout() {
		masterOf(QUEUE).pause();
		assertTimesOut(() -> this.operations.isPaused(QUEUE), "read whether queue 'mail' is paused");
	}

	@Test
	void readingTheDeadJobsOfAQueueWithAShardThatDoesNotAnswerFailsWithinTheTimeoutNamingTheShard() {
		String shard = this.store.queueShards().shards(QUEUE).get(2);
		masterOf(shard).pause();
		assertTimesOut(() -> this.operations.deadJobs(QUEUE, 0, 10),
				"read the dead jobs of shard '" + shard + "' of queue 'mail'");
	}

	@Test
	void readingADeadJobWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String id = idOnAStoppedShard();
		assertTimesOut(() -> this.operations.deadJob(QUEUE, id), "read dead job '" + id + "' of queue 'mail'");
	}

	@Test
	void readingTheStatusOfAJobWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String id = idOnAStoppedShard();
		assertTimesOut(() -> this.operations.status(QUEUE, id), "read the status of job '" + id + "' of queue 'mail'");
	}

	@Test
	void readingTheProgressOfAJobWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String id = idOnAStoppedShard();
		assertTimesOut(() -> this.operations.progress(QUEUE, id),
				"find the shard of queue 'mail' that holds job '" + id + "'");
	}

	@Test
	void triggeringAJobWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String id = idOnAStoppedShard();
		assertTimesOut(() -> this.operations.trigger(QUEUE, id),
				"move job '" + id + "' of queue 'mail' to a new due time");
	}

	@Test
	void cancellingAJobWhoseShardDoesNotAnswerFailsWithinTheTimeout() {
		String id = idOnAStoppedShard();
		assertTimesOut(() -> this.operations.cancel(QUEUE, id), "cancel job '" + id + "' of queue 'mail'");
	}

	@Test
	void readingTheCountsOfAQueueWithAShardThatDoesNotAnswerFailsWithinTheTimeoutNamingTheShard() {
		String shard = this.store.queueShards().shards(QUEUE).get(2);
		masterOf(shard).pause();
		assertTimesOut(() -> this.operations.stats(QUEUE), "read the counts of shard '" + shard + "' of queue 'mail'");
	}

	@Test
	void pausingAQueueWithAShardThatDoesNotAnswerFailsWithinTheTimeoutAndPausesTheOthers() {
		List<String> shards = this.store.queueShards().shards(QUEUE);
		masterOf(shards.get(2)).pause();
		assertShardTimesOut(() -> this.operations.pause(QUEUE), "pause", shards.get(2));
		// the shards that answer are paused, however late
		Awaitility.await()
			.atMost(FAST)
			.untilAsserted(() -> assertThat(shards.subList(0, 2))
				.allMatch((shard) -> this.store.getTemplate().hasKey(this.store.keys(shard).paused())));
	}

	@Test
	void purgingAQueueWithAShardThatDoesNotAnswerFailsWithinTheTimeout() {
		String shard = this.store.queueShards().shards(QUEUE).get(2);
		masterOf(shard).pause();
		assertShardTimesOut(() -> this.operations.purge(QUEUE), "purge", shard);
	}

	@Test
	void retryingAndDeletingDeadJobsOfAQueueWithAShardThatDoesNotAnswerFailWithinTheTimeout() {
		String shard = this.store.queueShards().shards(QUEUE).get(2);
		masterOf(shard).pause();
		assertShardTimesOut(() -> this.operations.retryDead(QUEUE, List.of()), "retry dead jobs of", shard);
		assertShardTimesOut(() -> this.operations.deleteDead(QUEUE, List.of("a")), "delete dead jobs of", shard);
	}

	/**
	 * Assert that a change of every shard fails within the timeout naming the last shard,
	 * the one stopped, and any other that had no time to answer.
	 */
	private static void assertShardTimesOut(ThrowingCallable call, String asked, String shard) {
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(call)
					.withMessageStartingWith("Redis did not answer within 500 ms when asked to " + asked + " shards [")
					.withMessageContaining(shard + "] of queue 'mail': they are down, unreachable or overloaded. "
							+ "The other shards have it done"));
	}

	private String idOnAStoppedShard() {
		String id = idOffTheFirstShard();
		masterOf(this.store.shardChoice().shardOf(QUEUE, id)).pause();
		return id;
	}

	private static void assertTimesOut(ThrowingCallable call, String asked) {
		assertTimeoutPreemptively(FAST,
				() -> assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(call)
					.withMessageStartingWith("Redis did not answer within 500 ms when asked to " + asked
							+ ": it is down, unreachable or overloaded"));
	}

	/**
	 * Return an id, also as a timer key of send-mail, of a shard other than the first.
	 */
	private String idOffTheFirstShard() {
		for (int i = 0;; i++) {
			String id = Integer.toString(i);
			if (!this.store.shardChoice().shardOf(QUEUE, id).equals(QUEUE)
					&& !this.store.shardChoice().shardOf(QUEUE, "send-mail:" + id).equals(QUEUE)) {
				return id;
			}
		}
	}

	/**
	 * Dispatch a workflow until its own keys and its job's shard are on different
	 * masters, so that the master that stops is the shard's alone.
	 */
	private <T> T untilApart(Supplier<T> dispatch, Function<T, String> ownKey, Function<T, String> jobShard) {
		for (int tries = 0; tries < 30; tries++) {
			T dispatched = dispatch.get();
			if (!cluster.masterOf(ownKey.apply(dispatched)).equals(masterOf(jobShard.apply(dispatched)))) {
				return dispatched;
			}
		}
		throw new IllegalStateException("Every workflow shared a master with its job");
	}

	/**
	 * Return the master of a shard of the queue other than the master of the given key,
	 * so that the calls to that key are answered.
	 */
	private RedisServer aShardMasterApartFrom(String key) {
		RedisServer keyMaster = cluster.masterOf(key);
		return this.store.queueShards()
			.shards(QUEUE)
			.stream()
			.map(this::masterOf)
			.filter((master) -> !master.equals(keyMaster))
			.findFirst()
			.orElseThrow();
	}

	private String shardHolding(String id) {
		return this.store.queueShards()
			.shards(QUEUE)
			.stream()
			.filter((shard) -> this.store.getTemplate().opsForHash().hasKey(this.store.keys(shard).jobs(), id))
			.findFirst()
			.orElseThrow();
	}

	private RedisServer masterOf(String shard) {
		return cluster.masterOf(this.store.keys(shard).jobs());
	}

}
