package io.redq.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.redq.queue.core.DeadJob;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobLimits;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.GateOperations;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.script.QueueScripts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobWorkerPool}: what a worker does with a reserved job before its
 * handler runs, against a real Redis.
 *
 * @author Redq team
 */
class JobWorkerPoolIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final Duration LEASE_TIME = Duration.ofMinutes(5);

	private static final String GATED = "\"job\":\"gated\",\"maxAttempts\":3,\"payload\":\"x\"}";

	private static final String FREE = "\"job\":\"free\",\"maxAttempts\":3,\"payload\":\"x\"}";

	/** The gates of job "gated": one runs at a time. */
	private static final Gates GATES = new Gates(null, "gated", 1, 0, null);

	/** The ids whose handler started, in order. */
	private final List<String> started = new CopyOnWriteArrayList<>();

	/** Holds the handler of job "busy" until counted down. */
	private final CountDownLatch busy = new CountDownLatch(1);

	private ScheduledExecutorService scheduler;

	private JobAcknowledger acknowledger;

	private JobWorkerPool workerPool;

	@BeforeEach
	void setUp() {
		this.acknowledger = new JobAcknowledger(QUEUE, this.listener, ContainerProperties.DEFAULT_LEASE_TIME);
		this.acknowledger.start(new CustomizableThreadFactory("test-acker-"));
		this.scheduler = Executors.newSingleThreadScheduledExecutor();
		this.workerPool = startWorkerPool(this.listener);
	}

	private JobWorkerPool startWorkerPool(ListenerOperations listener) {
		return startWorkerPool(listener, LEASE_TIME);
	}

	private JobWorkerPool startWorkerPool(ListenerOperations listener, Duration leaseTime) {
		ContainerProperties properties = new ContainerProperties();
		properties.setLeaseTime(leaseTime);
		JobOutcomes outcomes = new JobOutcomes(QUEUE, listener, this.acknowledger);
		JobHandler handler = new StringJobHandler(
				new JobDefinition("test", QUEUE, 3, Duration.ZERO,
						new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO), String.class),
				(payload, context) -> {
					this.started.add(context.getId());
					if (context.getId().equals("busy")) {
						this.busy.await();
					}
				});
		JobLeaseKeeper leaseKeeper = new JobLeaseKeeper(QUEUE, listener, properties, List.of(handler), outcomes,
				(nanos) -> 0);
		JobWorkerPool workerPool = new JobWorkerPool(QUEUE, () -> true, listener, Map.of("test", handler), leaseKeeper,
				outcomes, new JobPrefetch(QUEUE, () -> true, properties));
		workerPool.start(1, new CustomizableThreadFactory("test-worker-"), this.scheduler);
		return workerPool;
	}

	@AfterEach
	void tearDown() {
		this.busy.countDown();
		this.workerPool.stop();
		this.acknowledger.stop();
		this.scheduler.shutdownNow();
	}

	@Test
	void aJobWithANegativeTimeoutDiesAsMalformedBeforeItsHandlerRuns() {
		enqueue("negative", "\"job\":\"test\",\"maxAttempts\":3,\"timeout\":-1,\"payload\":\"x\"}");
		enqueue("next", "\"job\":\"test\",\"maxAttempts\":3,\"timeout\":0,\"payload\":\"x\"}");
		submit(reserve(2, LEASE_TIME));
		await().atMost(DEADLINE).until(() -> this.workerPool.executions().isEmpty());
		assertThat(this.started).containsExactly("next");
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 1)));
		DeadJob dead = this.operations.deadJob(QUEUE, "negative");
		assertThat(dead).isNotNull();
		assertThat(dead.error())
			.isEqualTo("Malformed job: its timeout is -1 ms; a timeout is 0 (no limit) or a positive number of ms");
	}

	@Test
	void aPrefetchedJobWhoseLeaseRanOutWhileItWaitedIsNotStarted() {
		enqueue("busy", "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
		enqueue("prefetched", "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
		submit(reserve(1, LEASE_TIME));
		await().atMost(DEADLINE).until(() -> this.started.contains("busy"));
		// reserved ahead while the only worker is busy, and no renewal reaches Redis (the
		// instance stalls, say)
		submit(reserve(1, Duration.ofMillis(100)));
		// another instance's migrator recovers the expired lease, and another worker runs
		// the job
		await().atMost(DEADLINE).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		ReservedJob redelivered = reserve(1, LEASE_TIME).get(0).job();
		assertThat(redelivered.id()).isEqualTo("prefetched");
		this.busy.countDown();
		await().atMost(DEADLINE).until(() -> this.workerPool.executions().isEmpty());
		assertThat(this.started).containsExactly("busy");
		assertThat(this.template.opsForHash().get(this.keys.leases(), "prefetched")).isEqualTo(redelivered.token());
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 1, 0)));
	}

	@Test
	void aJobGetsTheFullLeaseBeforeItsHandlerRunsAndARenewalConfirmsItsStartLater() {
		enqueue("busy", "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
		List<Reserved> reserved = reserve(1, ContainerProperties.WAITING_LEASE_TIME);
		double before = this.template.opsForZSet().score(this.keys.reserved(), "busy");
		submit(reserved);
		await().atMost(DEADLINE).until(() -> this.started.contains("busy"));
		assertThat(this.template.opsForZSet().score(this.keys.reserved(), "busy"))
			.isGreaterThanOrEqualTo(before + LEASE_TIME.minusMinutes(1).toMillis());
		assertThat(this.template.hasKey(this.keys.started())).isFalse();
	}

	@Test
	void aRunHoldsTheFullLeaseFromItsStartSoThatAPauseRightAfterItDoesNotThrowTheRunAway() {
		enqueue("busy", "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
		// reserved ahead with the waiting lease, and no renewal reaches Redis while the
		// handler runs: the instance pauses right after the start
		Duration waitingLease = ContainerProperties.WAITING_LEASE_TIME;
		List<Reserved> reserved = reserve(1, waitingLease);
		long reservedAt = redisTime();
		submit(reserved);
		await().atMost(DEADLINE).until(() -> this.started.contains("busy"));
		await().atMost(DEADLINE).until(() -> redisTime() > reservedAt + waitingLease.toMillis() + 100);
		this.listener.migrate(QUEUE);
		this.busy.countDown();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
		assertThat(this.started).containsExactly("busy");
	}

	private long redisTime() {
		return this.template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	@Test
	void aJobWhoseStartReplyWasLostIsNotChargedAnAttemptWhenItsLeaseExpires() {
		LettuceConnectionFactory impatient = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(300)).build());
		impatient.afterPropertiesSet();
		impatient.start();
		try (RedisConnection connection = impatient.getConnection()) {
			// connected before Redis pauses
			connection.ping();
			JobWorkerPool workerPool = startWorkerPool(
					new ListenerOperations(new QueueStore(impatient, QueueScripts.load(), new Keyspace("redq"))),
					Duration.ofSeconds(6));
			enqueue("once", "\"job\":\"test\",\"maxAttempts\":1,\"payload\":\"x\"}");
			List<Reserved> reserved = reserve(1, Duration.ofSeconds(2));
			// the lease script is loaded in Redis, so that the worker's call needs no
			// second
			// try
			this.listener.getLeaseOperations()
				.extend(QUEUE, List.of(), List.of(reserved.get(0).job().lease()), Duration.ZERO, Duration.ofSeconds(2));
			double reservedUntil = this.template.opsForZSet().score(this.keys.reserved(), "once");
			// Redis runs the worker's start only after its client gave up waiting for the
			// reply: the worker does not start the job
			this.redis.command("CLIENT", "PAUSE", "2500");
			workerPool.submit(reserved.get(0).job(), new Semaphore(0), reserved.get(0).leaseEndNanos(), null);
			await().atMost(DEADLINE).until(() -> workerPool.executions().isEmpty());
			workerPool.stop();
			await().atMost(DEADLINE)
				.until(() -> this.template.opsForZSet().score(this.keys.reserved(), "once") > reservedUntil);
			await().atMost(DEADLINE.multipliedBy(2)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
			assertThat(this.started).isEmpty();
			assertThat(this.operations.stats(QUEUE)).as("back in line, not dead").isEqualTo(new QueueStats(1, 0, 0, 0));
			submit(reserve(1, LEASE_TIME));
			await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
			assertThat(this.started).containsExactly("once");
		}
		finally {
			impatient.destroy();
		}
	}

	@Test
	void aJobWhoseLeaseRedisCannotExtendBeforeItsStartIsLeftToItsLeaseNotBuried() {
		// Redis answers every renewal with an error, as when it is overloaded
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("extend")
				? RedisScript.of("return redis.error_reply('ERR renewal refused')", List.class) : definition.load());
		JobWorkerPool failing = startWorkerPool(new ListenerOperations(
				new QueueStore(this.template.getRequiredConnectionFactory(), scripts, new Keyspace("redq"))));
		enqueue("late", "\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}");
		// little of the waiting lease left: the worker extends it before the handler runs
		List<Reserved> reserved = reserve(1, Duration.ofMillis(500));
		failing.submit(reserved.get(0).job(), new Semaphore(0), reserved.get(0).leaseEndNanos(), null);
		await().atMost(DEADLINE).until(() -> failing.executions().isEmpty());
		failing.stop();
		assertThat(this.started).isEmpty();
		assertThat(this.operations.stats(QUEUE)).as("still reserved, not dead: its lease expires as a stall")
			.isEqualTo(new QueueStats(0, 0, 1, 0));
	}

	@Test // GH-36
	void aJobHandedOverAsTheRunBeforeItLeftItsGatesRunsOnThatWorkerWhileNoJobWaitsForOne() {
		GatedPool pool = new GatedPool(2);
		enqueue("g1", GATED);
		enqueue("g2", GATED);
		submit(pool.workers, reserve(2, LEASE_TIME));
		// either starts, the other waits in line
		await().atMost(DEADLINE).until(() -> this.started.size() == 1 && parked() == 1);
		String first = this.started.get(0);
		String second = first.equals("g1") ? "g2" : "g1";
		pool.release(first);
		pool.release(second);
		await().atMost(DEADLINE).until(() -> pool.workers.executions().isEmpty() && this.started.contains(second));
		assertThat(pool.threads.get(second)).as("the worker that left").isEqualTo(pool.threads.get(first));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.template.hasKey(this.keys.holding())).isFalse();
		pool.stop();
	}

	@Test // GH-36
	void aJobHandedOverWhileAJobWaitsForAWorkerWaitsAdmittedAndIsHandedBackOutOfItsGatesWhenItsContainerStops() {
		GatedPool pool = new GatedPool(1);
		enqueue("g1", GATED);
		enqueue("g2", GATED);
		enqueue("free", FREE);
		submit(pool.workers, reserve(1, LEASE_TIME));
		await().atMost(DEADLINE).until(() -> this.started.contains("g1"));
		ReservedJob g2 = reserve(1, LEASE_TIME).get(0).job();
		assertThat(this.listener.getGateOperations().admit(QUEUE, g2.lease(), GATES, LEASE_TIME))
			.isEqualTo(GateOperations.PARKED);
		// waits for the only worker, so that the job handed over waits behind it
		submit(pool.workers, reserve(1, LEASE_TIME));
		pool.release("g1");
		await().atMost(DEADLINE).until(() -> this.started.contains("free"));
		String running = this.keys.gates(GATES).get(2);
		assertThat(this.template.opsForZSet().range(running, 0, -1)).as("let through as it was handed over")
			.singleElement()
			.asString()
			.startsWith("g2:");
		pool.running.set(false);
		pool.release("free");
		await().atMost(DEADLINE).until(() -> pool.workers.executions().isEmpty());
		assertThat(this.started).containsExactly("g1", "free");
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(1, 0, 0, 0)));
		assertThat(this.template.hasKey(running)).as("out of its gates").isFalse();
		assertThat(this.template.hasKey(this.keys.holding())).isFalse();
		assertThat(reserve(1, LEASE_TIME).get(0).job().attempt()).as("its attempt given back").isOne();
		pool.stop();
	}

	/**
	 * Return how many jobs wait in the lines of their gates.
	 */
	private long parked() {
		return this.template.opsForZSet().size(this.keys.lines());
	}

	private static void submit(JobWorkerPool workers, List<Reserved> jobs) {
		for (Reserved reserved : jobs) {
			workers.submit(reserved.job(), new Semaphore(0), reserved.leaseEndNanos(), null);
		}
	}

	/**
	 * A worker pool with a job "gated" that runs one at a time and a job "free" without
	 * limits, each run held until released by its id.
	 */
	private final class GatedPool {

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final Map<String, String> threads = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> holds = new ConcurrentHashMap<>();

		private final JobWorkerPool workers;

		private final JobAcknowledger acknowledger;

		GatedPool(int concurrency) {
			ContainerProperties properties = new ContainerProperties();
			properties.setLeaseTime(LEASE_TIME);
			this.acknowledger = new JobAcknowledger(QUEUE, JobWorkerPoolIntegrationTests.this.listener,
					ContainerProperties.DEFAULT_LEASE_TIME);
			this.acknowledger.start(new CustomizableThreadFactory("test-acker-"));
			JobOutcomes outcomes = new JobOutcomes(QUEUE, JobWorkerPoolIntegrationTests.this.listener,
					this.acknowledger);
			Map<String, JobHandler> handlers = Map.of("gated", handler("gated", new JobLimits(null, 1, null)), "free",
					handler("free", JobLimits.NONE));
			JobPrefetch prefetch = new JobPrefetch(QUEUE, () -> true, properties);
			JobLeaseKeeper leaseKeeper = new JobLeaseKeeper(QUEUE, JobWorkerPoolIntegrationTests.this.listener,
					properties, handlers.values(), outcomes, prefetch::runSize);
			this.workers = new JobWorkerPool(QUEUE, this.running::get, JobWorkerPoolIntegrationTests.this.listener,
					handlers, leaseKeeper, outcomes, prefetch);
			this.workers.start(concurrency, new CustomizableThreadFactory("test-gated-"),
					JobWorkerPoolIntegrationTests.this.scheduler);
		}

		private JobHandler handler(String name, JobLimits limits) {
			return new StringJobHandler(
					new JobDefinition(name, QUEUE, 3, Duration.ZERO,
							new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO), String.class, limits),
					(payload, context) -> {
						this.threads.put(context.getId(), Thread.currentThread().getName());
						JobWorkerPoolIntegrationTests.this.started.add(context.getId());
						if (!this.holds.computeIfAbsent(context.getId(), (id) -> new CountDownLatch(1))
							.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
							throw new IllegalStateException("Not released: " + context.getId());
						}
					});
		}

		void release(String id) {
			this.holds.computeIfAbsent(id, (key) -> new CountDownLatch(1)).countDown();
		}

		void stop() {
			this.holds.values().forEach(CountDownLatch::countDown);
			this.workers.stop();
			this.acknowledger.stop();
		}

	}

	private void enqueue(String id, String body) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP, body)));
	}

	private List<Reserved> reserve(int count, Duration lease) {
		long reservedNanos = System.nanoTime();
		List<ReservedJob> jobs = this.listener.reserve(QUEUE, count, lease).jobs();
		assertThat(jobs).hasSize(count);
		return jobs.stream().map((job) -> new Reserved(job, reservedNanos + lease.toNanos())).toList();
	}

	private void submit(List<Reserved> jobs) {
		for (Reserved reserved : jobs) {
			this.workerPool.submit(reserved.job(), new Semaphore(0), reserved.leaseEndNanos(), null);
		}
	}

	/**
	 * A reserved job and when its lease runs out by this JVM's clock.
	 */
	record Reserved(ReservedJob job, long leaseEndNanos) {

	}

}
