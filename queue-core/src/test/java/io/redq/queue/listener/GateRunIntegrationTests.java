package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.ReservedJob;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of runs: the jobs that follow a job handed over past the gates a run left, in a
 * {@link JobListenerContainer} against a real Redis.
 *
 * @author Redq team
 */
class GateRunIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final JobDefinition JOB = new JobDefinition("work", QUEUE, 3, Duration.ZERO,
			new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO), null);

	/**
	 * The run that blocks: late enough that the first run's long wait no longer counts in
	 * the recent job duration, which sizes the runs ({@link JobPrefetch#runSize(long)}).
	 */
	private static final int BLOCK_AT = 100;

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	/** How many runs of each job started. */
	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	/** The handlers running now, and the most that ever ran at once, per group. */
	private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> peak = new ConcurrentHashMap<>();

	private final AtomicInteger started = new AtomicInteger();

	/** The run that blocks ({@link #blockAt}) has started. */
	private final CountDownLatch blocked = new CountDownLatch(1);

	/** Lets the run that blocks go on. */
	private final CountDownLatch unblock = new CountDownLatch(1);

	/** Lets the first run go on: the others wait in line meanwhile. */
	private final CountDownLatch unblockFirst = new CountDownLatch(1);

	/**
	 * The how-many-th run blocks until {@link #unblock}, ignoring interrupts; 0: none.
	 */
	private volatile int blockAt;

	/** The id of the job whose run blocks. */
	private volatile String blockedId;

	@AfterEach
	void tearDown() throws Exception {
		this.unblockFirst.countDown();
		this.unblock.countDown();
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	@Test // GH-36
	void aDrainBehindAQueueLimitOfOneRunsOneJobAtATimeEachOnceWithOneLeavePerRunOfJobs() {
		int jobs = 300;
		enqueue(jobs, null);
		long linesRead = linesRead();
		JobListenerContainer container = start(4, 1, 0, ContainerProperties.DEFAULT_LEASE_TIME);
		awaitDrained(jobs);
		assertThat(this.peak.get("")).hasValue(1);
		// a leave reads the line of the place it freed twice per run (the job handed over
		// and those that join its run), once per job without runs
		assertThat(linesRead() - linesRead).as("reads of a line").isLessThan(jobs / 4);
		container.stop();
	}

	@Test // GH-36
	void aDrainOfFastJobsBehindALimitOfOneRunsInRunsOfMoreThan32Jobs() {
		int jobs = 1000;
		enqueue(jobs, null);
		long linesRead = linesRead();
		JobListenerContainer container = start(4, 1, 0, ContainerProperties.DEFAULT_LEASE_TIME);
		awaitDrained(jobs);
		assertThat(this.peak.get("")).hasValue(1);
		// two reads of the line per run: runs of at most 32 jobs read it at least once
		// per 16 jobs
		assertThat(linesRead() - linesRead).as("reads of a line").isLessThan(jobs / 32);
		container.stop();
	}

	@Test // GH-36
	void aDrainBehindAGroupLimitOfOneRunsOneJobOfAGroupAtATimeEachOnce() {
		int jobs = 150;
		enqueue(jobs, "a");
		enqueue(jobs, "b");
		long linesRead = linesRead();
		JobListenerContainer container = start(4, 0, 1, ContainerProperties.DEFAULT_LEASE_TIME);
		awaitDrained(2 * jobs);
		assertThat(this.peak.get("a")).hasValue(1);
		assertThat(this.peak.get("b")).hasValue(1);
		assertThat(linesRead() - linesRead).as("reads of a line").isLessThan(jobs / 2);
		container.stop();
	}

	@Test // GH-36
	void aStopHandsBackTheJobsOfARunThatDidNotStartWithTheirAttemptsAndFreesThePlace() throws Exception {
		int jobs = 300;
		enqueue(jobs, null);
		this.blockAt = BLOCK_AT;
		JobListenerContainer container = start(2, 1, 0, ContainerProperties.DEFAULT_LEASE_TIME);
		awaitRunBlocked(jobs);
		CompletableFuture<Void> stopped = CompletableFuture.runAsync(container::stop);
		await().atMost(DEADLINE).until(() -> !container.isRunning());
		this.unblock.countDown();
		stopped.get();
		assertThat(this.runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		int ran = this.runs.size();
		QueueStats stats = this.operations.stats(QUEUE);
		assertThat(stats.reserved()).as("nothing left reserved").isZero();
		assertThat(stats.ready() + stats.delayed()).isEqualTo(jobs - ran);
		assertThat(this.template.hasKey(this.keys.holding())).as("the place freed").isFalse();
		List<ReservedJob> back = this.listener.reserve(QUEUE, (int) stats.ready(), Duration.ofMinutes(1)).jobs();
		assertThat(back).isNotEmpty()
			.allSatisfy((job) -> assertThat(job.attempt()).as("its attempt given back").isOne());
	}

	@Test // GH-36
	void aStopPastItsTimeoutKeepsThePlaceOfARunWhileOneOfItsJobsStillRunsAndFreesItAfter() throws Exception {
		int jobs = 300;
		enqueue(jobs, null);
		this.blockAt = BLOCK_AT;
		JobListenerContainerFactory factory = factory(2, 1, 0, ContainerProperties.DEFAULT_LEASE_TIME);
		factory.getContainerProperties().setShutdownTimeout(Duration.ofMillis(100));
		JobListenerContainer container = factory.createContainer(QUEUE, List.of(handler()));
		container.start();
		this.closeables.push(container::stop);
		awaitRunBlocked(jobs);
		container.stop();
		String running = queueRunning();
		assertThat(this.template.opsForZSet().zCard(running)).as("held while a job of the run runs").isOne();
		this.unblock.countDown();
		await().atMost(DEADLINE).until(() -> !this.template.hasKey(this.keys.holding()));
		assertThat(this.template.hasKey(running)).isFalse();
		assertThat(this.operations.stats(QUEUE).reserved()).isZero();
	}

	/**
	 * Let the first run go once every other job waits in line, wait until the run that
	 * blocks started, and assert that it is a later job of a run: the place is held under
	 * another job's run.
	 */
	private void awaitRunBlocked(int jobs) throws InterruptedException {
		await().atMost(DEADLINE).until(() -> this.template.opsForZSet().zCard(this.keys.lines()) == jobs - 1);
		this.unblockFirst.countDown();
		assertThat(this.blocked.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(this.template.opsForZSet().range(queueRunning(), 0, -1)).singleElement()
			.asString()
			.doesNotStartWith(this.blockedId + ":");
	}

	private String queueRunning() {
		return this.keys.gates(new Gates(null, "work", 0, 1, null)).get(3);
	}

	private void awaitDrained(int jobs) {
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
		assertThat(this.runs).hasSize(jobs);
		assertThat(this.runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		assertThat(this.template.hasKey(this.keys.holding())).isFalse();
	}

	/**
	 * Return how many times scripts read a gate's line, Redis's count of
	 * {@code ZRANGEBYLEX}.
	 */
	private long linesRead() {
		for (String line : this.redis.command("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_zrangebylex:")) {
				int from = line.indexOf("calls=") + "calls=".length();
				return Long.parseLong(line.substring(from, line.indexOf(',', from)));
			}
		}
		return 0;
	}

	private void enqueue(int jobs, @Nullable String group) {
		String body = ((group != null) ? "\"group\":\"" + group + "\"," : "")
				+ "\"job\":\"work\",\"maxAttempts\":3,\"payload\":\"x\"}";
		this.enqueuer.enqueue(QUEUE, IntStream.range(0, jobs)
			.mapToObj(
					(i) -> new EnqueueCommand(((group != null) ? group : "j") + i, Due.NOW, DuplicatePolicy.KEEP, body))
			.toList());
	}

	private JobListenerContainer start(int concurrency, int maxRunning, int groupMaxRunning, Duration leaseTime) {
		JobListenerContainer container = factory(concurrency, maxRunning, groupMaxRunning, leaseTime)
			.createContainer(QUEUE, List.of(handler()));
		container.start();
		this.closeables.push(container::stop);
		return container;
	}

	private JobListenerContainerFactory factory(int concurrency, int maxRunning, int groupMaxRunning,
			Duration leaseTime) {
		JobListenerContainerFactory factory = new JobListenerContainerFactory(this.listener, JsonMapper.shared());
		factory.getContainerProperties().setConcurrency(concurrency);
		factory.getContainerProperties().setMaxRunning(maxRunning);
		factory.getContainerProperties().setGroupMaxRunning(groupMaxRunning);
		factory.getContainerProperties().setLeaseTime(leaseTime);
		factory.getContainerProperties().setShutdownTimeout(DEADLINE);
		return factory;
	}

	private StringJobHandler handler() {
		return new StringJobHandler(JOB, (payload, context) -> {
			String id = context.getId();
			String group = (id.startsWith("j")) ? "" : id.substring(0, 1);
			AtomicInteger now = this.running.computeIfAbsent(group, (key) -> new AtomicInteger());
			this.peak.computeIfAbsent(group, (key) -> new AtomicInteger())
				.accumulateAndGet(now.incrementAndGet(), Math::max);
			try {
				this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
				int start = this.started.incrementAndGet();
				if (start == 1 && this.blockAt > 0) {
					awaitUninterruptibly(this.unblockFirst);
				}
				if (start == this.blockAt) {
					this.blockedId = id;
					this.blocked.countDown();
					awaitUninterruptibly(this.unblock);
				}
			}
			finally {
				now.decrementAndGet();
			}
		});
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (latch.getCount() > 0) {
			try {
				latch.await();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
