package io.redq.queue.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for waiting for replicas ({@code WAIT}) after dispatches and acknowledgements,
 * against a real master and replica.
 *
 * @author Redq team
 */
class WaitForReplicasIntegrationTests {

	/**
	 * How long a write waits for a replica that is up: long enough for a loaded machine,
	 * since the tests assert that it is confirmed, not how soon.
	 */
	private static final Duration REPLICA_TIMEOUT = Duration.ofMinutes(1);

	/** How long a write waits for a paused replica, which never confirms it. */
	private static final Duration PAUSED_REPLICA_TIMEOUT = Duration.ofMillis(300);

	private RedisServer master;

	private RedisServer replica;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobQueueOperations operations;

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.master = RedisServer.local().start();
		this.replica = RedisServer.local()
			.arguments("--replicaof", this.master.host(), Integer.toString(this.master.port()))
			.start();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.replica.command("INFO", "replication").contains("master_link_status:up"));
		this.connectionFactory = TestConnections.connectionFactory(this.master);
		this.operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("send-mail", "mail", 3, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		this.dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
		this.connectionFactory.destroy();
		this.replica.resume();
		this.replica.close();
		this.master.close();
	}

	@Test
	void dispatchReturnsOnceTheReplicaHasTheJob() {
		this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build());
		assertThat(this.replica.command("HEXISTS", "redq:{mail}:jobs", "mail-1")).isEqualTo("1");
		assertThat(waitCalls()).isEqualTo(1);
	}

	@Test
	void dispatchThatNoReplicaConfirmsThrowsAndKeepsTheJobOnTheMaster() {
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build()))
			.satisfies((ex) -> assertThat(ex.getConfirmed()).isZero())
			.satisfies((ex) -> assertThat(ex.getRequired()).isOne())
			.withMessage("Redis took 1 job(s) of queue 'mail', but only 0 of the 1 replicas required "
					+ "(redq.durability.replicas) confirmed it within 300ms: it is on the master, and a failover "
					+ "before the replicas catch up would lose it. Check the replicas' link (INFO replication). "
					+ "Jobs concerned: mail-1.")
			.satisfies((ex) -> assertThat(ex.getJobIds()).containsExactly("mail-1"));
		assertThat(this.master.command("LRANGE", "redq:{mail}:ready", "0", "-1")).isEqualTo("mail-1");
		this.replica.resume();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> "1".equals(this.replica.command("HEXISTS", "redq:{mail}:jobs", "mail-1")));
	}

	@Test
	void acknowledgementThatNoReplicaConfirmsThrowsAndTheJobIsGoneFromTheMaster() {
		this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build());
		ListenerOperations listener = this.operations.getListenerOperations();
		List<ReservedJob> jobs = listener.reserve("mail", 1, Duration.ofMinutes(1)).jobs();
		assertThat(jobs).hasSize(1);
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> listener.getLeaseOperations().ack("mail", List.of(jobs.get(0).lease())))
			.withMessageStartingWith("Redis took the acknowledgement of 1 job(s) of queue 'mail', but only 0 of the 1")
			.withMessageEndingWith("Jobs concerned: mail-1.")
			.satisfies((ex) -> assertThat(ex.getJobIds()).containsExactly("mail-1"));
		assertThat(this.master.command("HEXISTS", "redq:{mail}:jobs", "mail-1")).isEqualTo("0");
		assertThat(this.master.command("ZCOUNT", "redq:{mail}:reserved", "-inf", "(inf")).isEqualTo("0");
	}

	@Test // GH-41
	void aDispatchThatNoReplicaConfirmsCountsAsDispatchedOnce() {
		List<String> dispatched = recordDispatched();
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build()));
		// the job is on the master and will run; only the replica lags
		assertThat(dispatched).containsExactly("mail send-mail");
		// sent again under the same id, it is kept, not another job
		this.replica.resume();
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		assertThat(this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build()).outcome())
			.isEqualTo(DispatchResult.Outcome.KEPT);
		assertThat(dispatched).containsExactly("mail send-mail");
	}

	@Test // GH-41
	void aCallOfAFixedIdThatNoReplicaConfirmsCountsItsJobOnceAsItsCallerRepeatsItUntilItSucceeds() {
		List<String> dispatched = recordDispatched();
		EnqueueOperations enqueue = this.operations.getEnqueueOperations();
		List<EnqueueCommand> job = List.of(new EnqueueCommand("mail-1", Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"send-mail\",\"maxAttempts\":3,\"payload\":\"x\"}"));
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> enqueue.enqueueOnce("mail", "call-1", job, Duration.ofMinutes(1), null));
		// an outbox relay, or a callback's delivery, repeats the call under its id, which
		// Redis answers as it answered the first
		this.replica.resume();
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		assertThat(enqueue.enqueueOnce("mail", "call-1", job, Duration.ofMinutes(1), null))
			.extracting(DispatchResult::outcome)
			.containsExactly(DispatchResult.Outcome.CREATED);
		assertThat(dispatched).containsExactly("mail send-mail");
	}

	@Test // GH-41
	void anAsynchronousDispatchThatNoReplicaConfirmsCountsAsDispatchedOnce() {
		List<String> dispatched = recordDispatched();
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		CompletableFuture<DispatchResult> first = this.dispatcher
			.dispatchAsync(JobRequest.of("send-mail", "hello").id("mail-1").build());
		CompletableFuture<DispatchResult> second = this.dispatcher
			.dispatchAsync(JobRequest.of("send-mail", "hello").id("mail-2").build());
		assertThat(first).failsWithin(Duration.ofSeconds(30))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(ReplicationTimeoutException.class);
		assertThat(second).failsWithin(Duration.ofSeconds(30))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(ReplicationTimeoutException.class);
		assertThat(dispatched).containsExactly("mail send-mail", "mail send-mail");
		this.replica.resume();
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		assertThat(this.dispatcher.dispatchAsync(JobRequest.of("send-mail", "hello").id("mail-2").build()))
			.succeedsWithin(Duration.ofSeconds(30))
			.extracting(DispatchResult::outcome)
			.isEqualTo(DispatchResult.Outcome.KEPT);
		assertThat(dispatched).containsExactly("mail send-mail", "mail send-mail");
	}

	@Test // GH-41
	void aChainStepCreatedByAnAcknowledgementThatNoReplicaConfirmsCountsAsDispatchedOnce() {
		List<String> dispatched = recordDispatched();
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest
			.of(JobRequest.of("send-mail", "first").build(), JobRequest.of("send-mail", "second").build())
			.build());
		ListenerOperations listener = this.operations.getListenerOperations();
		List<ReservedJob> first = listener.reserve("mail", 1, Duration.ofMinutes(1)).jobs();
		assertThat(first).extracting(ReservedJob::id).containsExactly(chain.stepIds().get(0));
		this.operations.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> listener.getLeaseOperations().ack("mail", List.of(first.get(0).lease())));
		// the acknowledgement created the next step on the master; only the replica lags
		assertThat(this.master.command("HEXISTS", "redq:{mail}:jobs", chain.stepIds().get(1))).isEqualTo("1");
		assertThat(dispatched).containsExactly("mail send-mail", "mail send-mail");
		// acknowledged again, it creates and counts nothing
		this.replica.resume();
		this.operations.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		listener.getLeaseOperations().ack("mail", List.of(first.get(0).lease()));
		assertThat(dispatched).containsExactly("mail send-mail", "mail send-mail");
	}

	@Test
	void anAcknowledgementThatWaitsForALaggingReplicaHoldsNoOtherCommand() throws Exception {
		this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build());
		ListenerOperations listener = this.operations.getListenerOperations();
		List<ReservedJob> jobs = listener.reserve("mail", 1, Duration.ofMinutes(1)).jobs();
		this.replica.pause();
		CompletableFuture<List<String>> ack = CompletableFuture
			.supplyAsync(() -> listener.getLeaseOperations().ack("mail", List.of(jobs.get(0).lease())));
		await().atMost(Duration.ofSeconds(30)).until(() -> this.master.command("CLIENT", "LIST").contains("cmd=wait"));
		// on the shared connection, as the workers' reservations and renewals
		assertThat(this.operations.stats("mail").ready()).isZero();
		assertThat(ack).isNotDone();
		this.replica.resume();
		assertThat(ack).succeedsWithin(Duration.ofSeconds(30)).asInstanceOf(InstanceOfAssertFactories.LIST).isEmpty();
	}

	@Test
	void lockIsHandedOutOnceTheReplicaHasIt() throws InterruptedException {
		RedisLockService locks = new RedisLockService(this.connectionFactory, new Keyspace("redq"));
		locks.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		LockHandle lock = locks.tryAcquire("invoice-42", Duration.ZERO);
		assertThat(lock).isNotNull();
		assertThat(this.replica.command("GET", "redq:lock:{invoice-42}:fence"))
			.isEqualTo(Long.toString(lock.getFencingToken()));
		locks.destroy();
	}

	@Test
	void lockThatNoReplicaConfirmsIsReleasedAgain() {
		RedisLockService locks = new RedisLockService(this.connectionFactory, new Keyspace("redq"));
		locks.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		assertThatExceptionOfType(ReplicationTimeoutException.class)
			.isThrownBy(() -> locks.tryAcquire("invoice-42", Duration.ZERO))
			.withMessageStartingWith("Redis took the lock 'invoice-42', but only 0 of the 1 replicas")
			.withMessageEndingWith("The lock was released again: try again once the replicas are back.");
		assertThat(this.master.command("EXISTS", "redq:lock:{invoice-42}")).isEqualTo("0");
		locks.destroy();
	}

	@Test
	void pollOfALockHeldByAnotherWaitsForNoReplica() throws InterruptedException {
		RedisLockService locks = new RedisLockService(this.connectionFactory, new Keyspace("redq"));
		locks.setReplicasToWaitFor(1, REPLICA_TIMEOUT);
		assertThat(locks.tryAcquire("invoice-42", Duration.ZERO)).isNotNull();
		locks.setReplicasToWaitFor(1, PAUSED_REPLICA_TIMEOUT);
		this.replica.pause();
		// a write on the shared connection that no replica confirms
		new StringRedisTemplate(this.connectionFactory).opsForValue().set("unconfirmed", "x");
		assertThat(locks.tryAcquire("invoice-42", Duration.ofMillis(100))).isNull();
		locks.destroy();
	}

	@Test
	void withoutReplicasToWaitForNothingWaits() {
		this.operations.setReplicasToWaitFor(0, REPLICA_TIMEOUT);
		this.replica.pause();
		this.dispatcher.dispatch(JobRequest.of("send-mail", "hello").id("mail-1").build());
		assertThat(waitCalls()).isZero();
	}

	private long waitCalls() {
		String stats = this.master.command("INFO", "commandstats");
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_wait:calls=")) {
				return Long.parseLong(line.substring("cmdstat_wait:calls=".length(), line.indexOf(',')));
			}
		}
		return 0;
	}

	private List<String> recordDispatched() {
		List<String> dispatched = new CopyOnWriteArrayList<>();
		this.operations.setMetrics(new JobMetrics() {

			@Override
			public void dispatched(String queue, String job) {
				dispatched.add(queue + " " + job);
			}

		});
		return dispatched;
	}

}
