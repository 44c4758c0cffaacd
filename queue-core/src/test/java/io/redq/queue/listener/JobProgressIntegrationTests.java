package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.ProgressFields;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.Keyspace;
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
 * Tests for what running jobs keep in Redis across their attempts: progress written at a
 * bounded rate, a cursor that the next attempt resumes at after a graceful stop or a
 * worker that died, and steps run once per job. Against a real Redis, with containers.
 *
 * @author Redq team
 */
@WithRedis
class JobProgressIntegrationTests {

	private static final String QUEUE = "progress";

	private static final Duration INTERVAL = Duration.ofMillis(100);

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final int ITEMS = 300;

	private static final JobDefinition DEFINITION = new JobDefinition("test", QUEUE, 3, Duration.ZERO,
			new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO), String.class);

	private final RedisServer redis;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private final List<JobListenerContainer> containers = new ArrayList<>();

	private final CountDownLatch release = new CountDownLatch(1);

	private RedisJobQueueOperations operations;

	private QueueKeys keys;

	private StringRedisTemplate template;

	JobProgressIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void setUp() {
		this.redis.flushAll();
		this.operations = operations();
		this.keys = this.operations.getStore().keys(QUEUE);
		this.template = this.operations.getStore().getTemplate();
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.containers.forEach(JobListenerContainer::stop);
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void aHandlerThatReportsInATightLoopIsWrittenAtMostOncePerIntervalAndItsLastValueShows() {
		AtomicLong reports = new AtomicLong();
		long startNanos = System.nanoTime();
		start(this.operations, (payload, context) -> {
			long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
			for (int i = 0; System.nanoTime() < end; i++) {
				context.reportProgress((i % 1000) / 1000.0, "row " + i);
				reports.incrementAndGet();
			}
			context.reportProgress(1, "done");
			this.release.await();
		}, Duration.ofSeconds(10));
		enqueue("tight", 1);
		// the last report is written by the renewals, while the handler waits
		await().atMost(DEADLINE)
			.until(() -> new JobProgress(1.0, "done", null).equals(this.operations.progress(QUEUE, "tight")));
		long elapsedMillis = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
		long writes = Long
			.parseLong((String) this.template.opsForHash().get(this.keys.progress("tight"), ProgressFields.WRITES));
		assertThat(writes).isBetween(2L, elapsedMillis / INTERVAL.toMillis() + 1);
		assertThat(reports.get()).isGreaterThan(100 * writes);
		JobCatalog catalog = new JobCatalog();
		catalog.register(DEFINITION);
		JobQueueInspector inspector = new JobQueueInspector(this.operations, catalog);
		assertThat(inspector.job(QUEUE, "tight").progress()).isEqualTo(new JobProgress(1.0, "done", null));
		this.release.countDown();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(this.template.hasKey(this.keys.progress("tight"))).isFalse();
		assertThat(this.operations.progress(QUEUE, "tight")).isNull();
	}

	@Test
	void anIterationResumesAtItsCursorAfterAGracefulStopWithoutRepeatingAnItemOrUsingAnAttempt() {
		List<Integer> processed = new CopyOnWriteArrayList<>();
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		CountDownLatch halfway = new CountDownLatch(1);
		JobListenerContainer first = start(this.operations, (payload, context) -> {
			attempts.add(context.getAttempt());
			context.iterate(Integer.class, 0, (item) -> {
				processed.add(item);
				if (item == ITEMS / 2) {
					halfway.countDown();
					// the container stops while this item is processed
					await().atMost(DEADLINE).until(() -> !this.containers.get(0).isRunning());
				}
				return (item + 1 < ITEMS) ? item + 1 : null;
			});
		}, Duration.ofSeconds(10));
		enqueue("long", 1);
		await().atMost(DEADLINE).until(() -> halfway.getCount() == 0);
		first.stop();
		assertThat(processed).hasSize(ITEMS / 2 + 1);
		assertThat(this.operations.status(QUEUE, "long").state()).isEqualTo(JobStatus.State.READY);
		assertThat(this.operations.progress(QUEUE, "long").cursor()).isEqualTo(Integer.toString(ITEMS / 2 + 1));
		start(this.operations, (payload, context) -> {
			attempts.add(context.getAttempt());
			context.iterate(Integer.class, 0, (item) -> {
				processed.add(item);
				return (item + 1 < ITEMS) ? item + 1 : null;
			});
		}, Duration.ofSeconds(10));
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(processed).hasSize(ITEMS).doesNotHaveDuplicates();
		// the job had one attempt: the stop did not use it
		assertThat(attempts).containsExactly(1, 1);
		assertThat(this.operations.deadJob(QUEUE, "long")).isNull();
		assertThat(this.template.hasKey(this.keys.progress("long"))).isFalse();
	}

	@Test
	void anIterationWhoseWorkerDiedRepeatsAtMostTheItemsOfOneIntervalAndLosesNone() {
		Map<Integer, Integer> runs = new ConcurrentHashMap<>();
		List<Long> firstStarts = new CopyOnWriteArrayList<>();
		AtomicInteger resumedAt = new AtomicInteger(-1);
		RedisJobQueueOperations dying = operations();
		start(dying, (payload, context) -> context.iterate(Integer.class, 0, (item) -> {
			firstStarts.add(System.nanoTime());
			runs.merge(item, 1, Integer::sum);
			if (item == ITEMS / 2) {
				// from here on nothing of this instance reaches Redis
				this.connectionFactories.get(1).stop();
				this.release.await();
			}
			// work that takes a while
			Thread.sleep(2);
			return (item + 1 < ITEMS) ? item + 1 : null;
		}), Duration.ofSeconds(2));
		enqueue("killed", 3);
		await().atMost(DEADLINE).until(() -> !this.connectionFactories.get(1).isRunning());
		start(this.operations, (payload, context) -> context.iterate(Integer.class, 0, (item) -> {
			resumedAt.compareAndSet(-1, item);
			runs.merge(item, 1, Integer::sum);
			return (item + 1 < ITEMS) ? item + 1 : null;
		}), Duration.ofSeconds(10));
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(runs).hasSize(ITEMS);
		long repeated = runs.values().stream().filter((count) -> count > 1).count();
		assertThat(runs.values()).allMatch((count) -> count <= 2);
		assertThat(resumedAt.get()).isGreaterThan(0);
		assertThat(repeated).isEqualTo(ITEMS / 2 + 1 - resumedAt.get());
		// the items started since the cursor's last write, all within one interval of it,
		// and the item in progress at it
		assertThat(repeated).isLessThanOrEqualTo(mostStartsWithinAnInterval(firstStarts) + 1);
	}

	@Test
	void aStepRunsOncePerJobAcrossItsAttempts() {
		AtomicInteger first = new AtomicInteger();
		AtomicInteger second = new AtomicInteger();
		start(this.operations, (payload, context) -> {
			context.step("download", first::incrementAndGet);
			context.step("import", () -> {
				second.incrementAndGet();
				if (context.getAttempt() == 1) {
					throw new IllegalStateException("import failed");
				}
			});
		}, Duration.ofSeconds(10));
		enqueue("steps", 3);
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).pending() == 0);
		assertThat(first).hasValue(1);
		assertThat(second).hasValue(2);
		assertThat(this.operations.deadJob(QUEUE, "steps")).isNull();
		assertThat(this.template.hasKey(this.keys.progress("steps"))).isFalse();
	}

	private static long mostStartsWithinAnInterval(List<Long> starts) {
		long most = 0;
		for (int i = 0; i < starts.size(); i++) {
			long from = starts.get(i);
			most = Math.max(most, starts.stream().filter((at) -> at >= from && at - from < INTERVAL.toNanos()).count());
		}
		return most;
	}

	private RedisJobQueueOperations operations() {
		LettuceConnectionFactory connectionFactory = TestConnections.connectionFactory(this.redis);
		this.connectionFactories.add(connectionFactory);
		RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		operations.getListenerOperations().getProgressOperations().setProgressInterval(INTERVAL);
		return operations;
	}

	private JobListenerContainer start(RedisJobQueueOperations operations, StringJobHandler.Handling handling,
			Duration leaseTime) {
		ContainerProperties properties = new ContainerProperties();
		properties.setConcurrency(1);
		properties.setLeaseTime(leaseTime);
		properties.setShutdownTimeout(Duration.ofSeconds(10));
		JobHandler handler = new StringJobHandler(DEFINITION, handling);
		JobListenerContainer container = new JobListenerContainer(QUEUE, operations.getListenerOperations(),
				JsonMapper.shared(), List.of(handler), properties);
		this.containers.add(container);
		container.start();
		return container;
	}

	private void enqueue(String id, int maxAttempts) {
		this.operations.getEnqueueOperations()
			.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"x\"}")));
	}

}
