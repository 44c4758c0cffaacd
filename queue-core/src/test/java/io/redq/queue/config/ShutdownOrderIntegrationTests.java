package io.redq.queue.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.StringJobHandler;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.support.JobQueueLifecycle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dispatcher and the listener containers share one lifecycle phase, so Spring stops
 * them in either order: whichever stops first, no dispatched job is lost. Built by hand,
 * without an application context, against a real Redis.
 *
 * @author Redq team
 */
class ShutdownOrderIntegrationTests extends AbstractQueueIntegrationTests {

	private final Set<String> finished = ConcurrentHashMap.newKeySet();

	private JobListenerRegistry registry;

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		JobCatalog catalog = new JobCatalog();
		this.registry = new JobListenerRegistry(catalog);
		// works a few milliseconds per job, so that jobs are running when the containers
		// stop
		this.registry.registerHandler(new StringJobHandler(
				new JobDefinition("work", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class),
				(payload, context) -> {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
					this.finished.add(context.getId());
				}));
		JobListenerContainerFactory factory = new JobListenerContainerFactory(this.listener, JsonMapper.shared());
		factory.getContainerProperties().setConcurrency(4);
		factory.getContainerProperties().setShutdownTimeout(Duration.ofMillis(500));
		this.registry.createContainers(factory);
		this.dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		assertThat(this.dispatcher.getPhase()).isEqualTo(this.registry.getPhase()).isEqualTo(JobQueueLifecycle.PHASE);
		this.registry.start();
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
		this.registry.stop();
	}

	@ParameterizedTest
	@EnumSource(Order.class)
	void noDispatchedJobIsLostWhicheverStopsFirst(Order order) throws Exception {
		List<String> dispatched = new ArrayList<>(
				this.dispatcher.dispatchAll(jobs(200)).stream().map(DispatchResult::id).toList());
		Queue<CompletableFuture<DispatchResult>> asyncDispatches = new ConcurrentLinkedQueue<>();
		Thread producer = new Thread(() -> {
			try {
				while (true) {
					asyncDispatches.add(this.dispatcher.dispatchAsync(JobRequest.of("work", "async").build()));
				}
			}
			catch (IllegalStateException ex) {
				// the dispatcher closed: this dispatch was refused, and its caller told
				// so
			}
		});
		producer.start();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.finished.size() >= 20);
		// a burst, so that dispatches are pending when the shutdown begins
		for (int i = 0; i < 2000; i++) {
			asyncDispatches.add(this.dispatcher.dispatchAsync(JobRequest.of("work", "burst").build()));
		}
		if (order == Order.DISPATCHER_FIRST) {
			this.dispatcher.stop();
			stopContainers();
		}
		else {
			stopContainers();
			this.dispatcher.stop();
		}
		producer.join(TimeUnit.SECONDS.toMillis(30));
		assertThat(producer.isAlive()).as("the producer ends once the dispatcher refuses").isFalse();
		for (CompletableFuture<DispatchResult> future : asyncDispatches) {
			assertThat(future).as("every asynchronous dispatch is answered").isDone();
			if (!future.isCompletedExceptionally()) {
				dispatched.add(future.join().id());
			}
		}
		Set<String> inRedis = inRedis();
		List<String> lost = dispatched.stream()
			.filter((id) -> !this.finished.contains(id) && !inRedis.contains(id))
			.toList();
		assertThat(lost).as("jobs neither finished nor in Redis, of %d dispatched", dispatched.size()).isEmpty();
	}

	/**
	 * Return the ids that are ready, delayed or reserved, in one read of each set.
	 */
	private Set<String> inRedis() {
		Set<String> ids = new HashSet<>(this.template.opsForList().range(this.keys.ready(), 0, -1));
		ids.addAll(this.template.opsForZSet().range(this.keys.delayed(), 0, -1));
		ids.addAll(this.template.opsForZSet()
			.rangeByScore(this.keys.reserved(), Double.NEGATIVE_INFINITY, Double.MAX_VALUE));
		return ids;
	}

	private void stopContainers() throws InterruptedException {
		CountDownLatch stopped = new CountDownLatch(1);
		this.registry.stop(stopped::countDown);
		assertThat(stopped.await(30, TimeUnit.SECONDS)).as("containers stopped").isTrue();
	}

	private static List<JobRequest> jobs(int count) {
		List<JobRequest> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(JobRequest.of("work", "sync-" + i).build());
		}
		return jobs;
	}

	enum Order {

		DISPATCHER_FIRST, CONTAINERS_FIRST

	}

}
