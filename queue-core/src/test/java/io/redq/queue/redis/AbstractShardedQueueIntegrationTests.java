package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DeadJob;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.JobPage;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.SearchResult;
import io.redq.queue.inspect.ShardView;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.listener.StringJobHandler;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of a queue spread over three shards, on the Redis a subclass connects to: where
 * the shards are placed, that jobs spread over them and each runs once, that a caller id,
 * a group and a timer's key keep to one shard, that an idle container wakes for a job on
 * any shard and that a busy shard starves no other.
 *
 * @author Redq team
 */
abstract class AbstractShardedQueueIntegrationTests {

	static final String QUEUE = "sharded";

	private static final int SHARDS = 3;

	static final Duration DEADLINE = Duration.ofSeconds(20);

	private static final JobBackoff NO_WAIT = new JobBackoff(Duration.ZERO, 1.0, Duration.ZERO, Duration.ZERO);

	private static final JobDefinition JOB = new JobDefinition("work", QUEUE, 3, Duration.ZERO, NO_WAIT, null);

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final List<String> order = new CopyOnWriteArrayList<>();

	private final CountDownLatch held = new CountDownLatch(1);

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger peak = new AtomicInteger();

	private int maxRunning;

	/**
	 * Return a started connection factory to the Redis of the test, emptied.
	 * @return the connection factory
	 */
	abstract LettuceConnectionFactory connectionFactory();

	@AfterEach
	void close() throws Exception {
		this.held.countDown();
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	RedisJobQueueOperations operations(int shards) {
		RedisJobQueueOperations operations = operationsWithoutShardCount();
		operations.getStore().setShards(QUEUE, shards);
		return operations;
	}

	private RedisJobQueueOperations operationsWithoutShardCount() {
		LettuceConnectionFactory connectionFactory = connectionFactory();
		this.closeables.push(connectionFactory::destroy);
		return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
	}

	@Test
	void instancesAgreeOnDistinctShardsAndAQueueOfOneShardKeepsItsOwnKeys() {
		RedisJobQueueOperations first = operations(SHARDS);
		RedisJobQueueOperations second = operations(SHARDS);
		QueueStore store = first.getStore();
		List<String> keys = store.queueShards()
			.shards(QUEUE)
			.stream()
			.map((shard) -> store.keys(shard).ready())
			.toList();
		assertThat(second.getStore()
			.queueShards()
			.shards(QUEUE)
			.stream()
			.map((shard) -> second.getStore().keys(shard).ready())).containsExactlyElementsOf(keys);
		assertThat(new HashSet<>(keys)).hasSize(SHARDS);
		// the first shard has the queue's own keys
		assertThat(keys.get(0)).isEqualTo(new Keyspace("redq").queue(QUEUE).ready());
		assertThat(distinctOwners(store, keys)).isTrue();
		RedisJobQueueOperations single = operations(1);
		single.getStore().setShards("plain", 1);
		assertThat(single.getStore().queueShards().shards("plain")).containsExactly("plain");
		assertThat(template(single).hasKey(new Keyspace("redq").placement("plain"))).isFalse();
	}

	/**
	 * Return whether the keys are each on a master of their own, as a test on a cluster
	 * checks.
	 */
	abstract boolean distinctOwners(QueueStore store, List<String> keys);

	@Test
	void jobsSpreadOverEveryShardAndEachRunsExactlyOnce() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			ids.add(dispatcher.dispatch("work", "job " + i).id());
		}
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			assertThat(template(operations).opsForList().size(operations.getStore().keys(shard).ready())).as(shard)
				.isGreaterThan(90);
		}
		assertThat(operations.stats(QUEUE).ready()).isEqualTo(300);
		start(operations, 4);
		await().atMost(DEADLINE).until(() -> this.runs.size() == 300 && operations.stats(QUEUE).ready() == 0);
		assertThat(this.runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(this.runs.values()).allMatch((count) -> count.get() == 1);
	}

	@Test
	void theJobsWithoutKeysOfOneCallGoToOneShardAndTheCallsTakeTheShardsInTurn() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		for (int call = 1; call <= SHARDS; call++) {
			List<JobRequest> requests = new ArrayList<>();
			for (int i = 0; i < 30; i++) {
				requests.add(JobRequest.of("work", "x").build());
			}
			dispatcher.dispatchAll(requests);
			List<Long> ready = shards.stream()
				.map((shard) -> template(operations).opsForList().size(operations.getStore().keys(shard).ready()))
				.toList();
			assertThat(ready).as("after call " + call).allMatch((count) -> count == 0L || count == 30L);
			assertThat(ready.stream().filter((count) -> count == 30L).count()).as("after call " + call).isEqualTo(call);
		}
		assertThat(operations.stats(QUEUE).ready()).isEqualTo(30L * SHARDS);
	}

	@Test
	void aCallerIdAGroupAndATimersKeyEachKeepToOneShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		Set<String> ids = new HashSet<>();
		for (int i = 0; i < 6; i++) {
			DispatchResult result = dispatcher.dispatch(
					JobRequest.of("work", "again").id("once", DuplicatePolicy.KEEP).delay(Duration.ofHours(1)).build());
			ids.add(result.id());
		}
		assertThat(ids).containsExactly("once");
		assertThat(operations.stats(QUEUE).delayed()).isEqualTo(1);
		for (int i = 0; i < 6; i++) {
			dispatcher.dispatch(JobRequest.of("work", "grouped").group("tenant-1").delay(Duration.ofHours(1)).build());
		}
		long shardsWithGroup = operations.getStore()
			.queueShards()
			.shards(QUEUE)
			.stream()
			.filter((shard) -> template(operations).opsForZSet().size(operations.getStore().keys(shard).delayed()) >= 6)
			.count();
		assertThat(shardsWithGroup).isEqualTo(1);
		Instant at = Instant.now().plus(Duration.ofHours(1));
		for (int key = 0; key < 6; key++) {
			dispatcher.schedule("work", "order-" + key, at);
		}
		for (int key = 0; key < 6; key++) {
			assertThat(dispatcher.reschedule("work", "order-" + key, at.plusSeconds(60))).isTrue();
			assertThat(dispatcher.findTimer("work", "order-" + key)).isPresent();
			assertThat(dispatcher.cancelTimer("work", "order-" + key)).isTrue();
			assertThat(dispatcher.findTimer("work", "order-" + key)).isEmpty();
		}
		assertThat(operations.cancel(QUEUE, "once")).isTrue();
		assertThat(operations.status(QUEUE, "once").state()).isEqualTo(JobStatus.State.NONE);
		assertThat(operations.stats(QUEUE).delayed()).isEqualTo(6);
	}

	@Test
	void anIdleContainerWakesForAJobOnAnyShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		JobListenerContainer container = start(operations, 2);
		// the poll timeout (a minute) is longer than the deadline: only a wake-up ends
		// the
		// wait in time
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			String id = idOn(operations, shard);
			dispatcher.dispatch(JobRequest.of("work", "wake").id(id).build());
			await().atMost(DEADLINE).until(() -> this.runs.containsKey(id));
		}
		assertThat(container.isRunning()).isTrue();
		// a caller waiting for a job's result hears of it from the job's shard
		try (JobResults results = new JobResults(operations.getStore())) {
			List<CompletableFuture<String>> waits = new ArrayList<>();
			for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
				String id = idOn(operations, shard, "held-");
				dispatcher.dispatch(JobRequest.of("work", "hold").id(id).build());
				waits.add(results.await(QUEUE, id, String.class, DEADLINE));
			}
			// every wait read its job's state in its shard, and asked it to announce the
			// end
			await().atMost(DEADLINE)
				.until(() -> operations.getStore()
					.queueShards()
					.shards(QUEUE)
					.stream()
					.allMatch((shard) -> template(operations).hasKey(operations.getStore().keys(shard).waiting())));
			this.held.countDown();
			waits.forEach((wait) -> assertThat(wait).succeedsWithin(DEADLINE).isNull());
		}
	}

	@Test
	void aBusyShardStarvesNoOther() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		String busy = groupOn(operations, shards.get(0));
		List<JobRequest> requests = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			requests.add(JobRequest.of("work", "busy").group(busy).build());
		}
		dispatcher.dispatchAll(requests);
		String lone = idOn(operations, shards.get(SHARDS - 1));
		dispatcher.dispatch(JobRequest.of("work", "lone").id(lone).build());
		start(operations, 1);
		await().atMost(DEADLINE).until(() -> this.runs.containsKey(lone));
		// one job at a time, taken from each shard in turn
		assertThat(this.order.indexOf(lone)).isLessThan(10);
	}

	@Test
	void pauseAndDeadJobsCoverEveryShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		operations.pause(QUEUE);
		List<String> ids = new ArrayList<>();
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			assertThat(template(operations).hasKey(operations.getStore().keys(shard).paused())).as(shard).isTrue();
			ids.add(idOn(operations, shard));
			dispatcher.dispatch(JobRequest.of("work", "fail").id(ids.get(ids.size() - 1)).build());
		}
		assertThat(operations.isPaused(QUEUE)).isTrue();
		assertThat(operations.snapshot(QUEUE).paused()).isTrue();
		start(operations, 2);
		operations.resume(QUEUE);
		assertThat(operations.isPaused(QUEUE)).isFalse();
		await().atMost(DEADLINE).until(() -> operations.stats(QUEUE).dead() == SHARDS);
		assertThat(operations.deadJobs(QUEUE, 0, 10)).extracting(DeadJob::id).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(operations.deadJobs(QUEUE, 1, 10)).hasSize(SHARDS - 1);
		for (String id : ids) {
			assertThat(operations.deadJob(QUEUE, id)).isNotNull();
		}
		assertThat(operations.deleteDead(QUEUE, ids)).isEqualTo(SHARDS);
		assertThat(operations.stats(QUEUE).dead()).isZero();
	}

	@Test
	void maxRunningHoldsPerShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		for (String shard : operations.getStore().queueShards().shards(QUEUE)) {
			for (String prefix : List.of("first-", "second-")) {
				dispatcher.dispatch(JobRequest.of("work", "hold").id(idOn(operations, shard, prefix)).build());
			}
		}
		this.maxRunning = 1;
		start(operations, 2 * SHARDS);
		// one job of each shard runs, the other waits for its shard's place
		await().atMost(DEADLINE).until(() -> this.running.get() == SHARDS);
		assertThat(operations.stats(QUEUE).ready() + operations.stats(QUEUE).delayed()
				+ operations.stats(QUEUE).reserved())
			.isEqualTo(2L * SHARDS);
		this.held.countDown();
		await().atMost(DEADLINE).until(() -> this.runs.size() == 2 * SHARDS);
		assertThat(this.peak.get()).isEqualTo(SHARDS);
	}

	@Test
	void theInspectorPagesSearchesAndFindsJobsOnEveryShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		JobQueueInspector inspector = new JobQueueInspector(operations, definitions());
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		List<String> ready = new ArrayList<>();
		for (String shard : shards) {
			for (String prefix : List.of("r-", "s-")) {
				ready.add(dispatcher.dispatch(JobRequest.of("work", "x").id(idOn(operations, shard, prefix)).build())
					.id());
			}
		}
		String urgent = idOn(operations, shards.get(2), "u-");
		dispatcher.dispatch(JobRequest.of("work", "x").id(urgent).priority(9).build());
		JobPage page = inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(page.total()).isEqualTo(7);
		assertThat(page.jobs()).extracting(JobView::id).first().isEqualTo(urgent);
		// then the longest ready first, from every shard
		assertThat(page.jobs().subList(1, 7)).extracting(JobView::id).containsExactlyInAnyOrderElementsOf(ready);
		assertThat(page.jobs().subList(1, 7)).extracting(JobView::at).isSorted();
		assertThat(inspector.jobs(QUEUE, JobStatus.State.READY, 2, 3).jobs()).extracting(JobView::id)
			.containsExactlyElementsOf(page.jobs().subList(2, 5).stream().map(JobView::id).toList());
		// delayed jobs in due order across the shards, the soonest on the last shard
		List<String> delayed = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			String id = idOn(operations, shards.get(2 - i), "d-");
			dispatcher.dispatch(JobRequest.of("work", "x").id(id).delay(Duration.ofHours(i + 1)).build());
			delayed.add(id);
		}
		page = inspector.jobs(QUEUE, JobStatus.State.DELAYED, 0, 10);
		assertThat(page.total()).isEqualTo(3);
		assertThat(page.jobs()).extracting(JobView::id).containsExactlyElementsOf(delayed);
		assertThat(inspector.jobs(QUEUE, JobStatus.State.DELAYED, 1, 1).jobs()).extracting(JobView::id)
			.containsExactly(delayed.get(1));
		JobView job = inspector.job(QUEUE, delayed.get(0));
		assertThat(job).isNotNull();
		assertThat(job.job()).isEqualTo("work");
		assertThat(inspector.search(SearchBy.ID, "d-", 10).jobs()).extracting(JobView::id)
			.containsExactlyInAnyOrderElementsOf(delayed);
		SearchResult byName = inspector.search(SearchBy.JOB, "work", 50);
		assertThat(byName.jobs()).hasSize(10);
		assertThat(byName.complete()).isTrue();
	}

	@Test
	void theInspectorDescribesEachShardWhereItLivesAndWhatItHolds() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		dispatchOneMoreEachShard(operations, dispatcher, shards);
		dispatcher.dispatch(JobRequest.of("work", "x")
			.id(idOn(operations, shards.get(1), "later-"))
			.delay(Duration.ofHours(1))
			.build());
		List<ShardView> views = new JobQueueInspector(operations, definitions()).shards(QUEUE);
		assertThat(views).extracting(ShardView::hashTag)
			.containsExactlyElementsOf(
					shards.stream().map((shard) -> operations.getStore().keys(shard).hashTag()).toList())
			.startsWith("{" + QUEUE + "}")
			.doesNotHaveDuplicates();
		assertThat(views).extracting((view) -> view.snapshot().stats().ready()).containsExactly(1L, 2L, 3L);
		assertThat(views).extracting((view) -> view.snapshot().stats().delayed()).containsExactly(0L, 1L, 0L);
		for (ShardView view : views) {
			QueueReader.ShardPlace expected = expectedPlace(view.hashTag());
			assertThat(view.slot()).as(view.hashTag()).isEqualTo((expected != null) ? expected.slot() : null);
			assertThat(view.master()).as(view.hashTag()).isEqualTo((expected != null) ? expected.master() : null);
		}
	}

	@Test
	void anInspectorWithoutTheShardCountReadsEveryShardOfTheStoredPlacementAndNeverWritesIt() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		dispatchOneMoreEachShard(operations, dispatcher, shards);
		String placement = new Keyspace("redq").placement(QUEUE);
		StringRedisTemplate redis = template(operations);
		String stored = redis.opsForValue().get(placement);
		Long ttl = redis.getExpire(placement);
		// a dashboard-only application: no listener, no redq.queues.<queue>.shards
		JobQueueInspector inspector = new JobQueueInspector(operationsWithoutShardCount(), definitions());
		List<ShardView> views = inspector.shards(QUEUE);
		assertThat(views).extracting(ShardView::hashTag)
			.containsExactlyElementsOf(
					shards.stream().map((shard) -> operations.getStore().keys(shard).hashTag()).toList());
		assertThat(views).extracting((view) -> view.snapshot().stats().ready()).containsExactly(1L, 2L, 3L);
		assertThat(inspector.snapshot(QUEUE).stats().ready()).isEqualTo(6);
		JobPage page = inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(page.total()).isEqualTo(6);
		assertThat(page.jobs()).hasSize(6);
		assertThat(redis.opsForValue().get(placement)).isEqualTo(stored);
		assertThat(redis.getExpire(placement)).isEqualTo(ttl);
	}

	@Test
	void anApplicationWithoutTheShardCountChangesEveryShardOfTheStoredPlacementAndNeverWritesIt() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		String placement = new Keyspace("redq").placement(QUEUE);
		StringRedisTemplate redis = template(operations);
		String stored = redis.opsForValue().get(placement);
		// a dashboard-only application: no listener, no redq.queues.<queue>.shards
		RedisJobQueueOperations other = operationsWithoutShardCount();
		other.pause(QUEUE);
		for (String shard : shards) {
			assertThat(redis.hasKey(operations.getStore().keys(shard).paused())).as(shard).isTrue();
		}
		List<String> failing = new ArrayList<>();
		List<String> delayed = new ArrayList<>();
		for (String shard : shards) {
			failing.add(idOn(operations, shard, "fail-"));
			dispatcher.dispatch(JobRequest.of("work", "fail").id(failing.get(failing.size() - 1)).build());
			delayed.add(idOn(operations, shard, "later-"));
			dispatcher.dispatch(
					JobRequest.of("work", "x").id(delayed.get(delayed.size() - 1)).delay(Duration.ofHours(1)).build());
		}
		start(operations, 2);
		other.resume(QUEUE);
		await().atMost(DEADLINE).until(() -> operations.stats(QUEUE).dead() == SHARDS);
		assertThat(other.deadJobs(QUEUE, 0, 10)).extracting(DeadJob::id).containsExactlyInAnyOrderElementsOf(failing);
		assertThat(other.retryDead(QUEUE, failing)).isEqualTo(SHARDS);
		// each ran its three attempts again
		await().atMost(DEADLINE)
			.until(() -> failing.stream().allMatch((id) -> this.runs.get(id).get() == 6)
					&& operations.stats(QUEUE).dead() == SHARDS);
		for (String id : failing) {
			assertThat(other.deadJob(QUEUE, id)).as(id).isNotNull();
		}
		assertThat(other.deleteDead(QUEUE, List.of())).isEqualTo(SHARDS);
		for (String id : delayed) {
			assertThat(other.status(QUEUE, id).state()).as(id).isEqualTo(JobStatus.State.DELAYED);
		}
		assertThat(other.cancel(QUEUE, delayed.get(SHARDS - 1))).isTrue();
		assertThat(other.reschedule(QUEUE, delayed.get(SHARDS - 2), Due.after(Duration.ofHours(2)))).isTrue();
		assertThat(operations.stats(QUEUE).delayed()).isEqualTo(SHARDS - 1);
		other.purge(QUEUE);
		assertThat(operations.stats(QUEUE).delayed()).isZero();
		assertThat(redis.opsForValue().get(placement)).isEqualTo(stored);
		// its dispatches keep to the count it was given
		assertThat(other.getStore().queueShards().shards(QUEUE)).containsExactly(QUEUE);
	}

	/**
	 * Return where a hash tag lives on the Redis of the test.
	 * @param hashTag the hash tag
	 * @return its slot and master, or {@code null} without a cluster
	 */
	QueueReader.@Nullable ShardPlace expectedPlace(String hashTag) {
		return null;
	}

	@Test
	void aQueueWhoseJobsAllLiveInALaterShardIsDiscovered() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		String last = operations.getStore().queueShards().shards(QUEUE).get(SHARDS - 1);
		dispatcher.dispatch(JobRequest.of("work", "x").id(idOn(operations, last)).build());
		assertThat(template(operations).hasKey(operations.getStore().keys(QUEUE).model())).as("first shard used")
			.isFalse();
		// an application that has no job of the queue finds it in Redis alone
		JobQueueInspector inspector = new JobQueueInspector(operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return null;
			}

			@Override
			public List<JobDefinition> all() {
				return List.of();
			}

		});
		inspector.setDiscoveryInterval(Duration.ZERO);
		assertThat(inspector.exists(QUEUE)).isTrue();
		await().atMost(DEADLINE).until(() -> inspector.queueNames().contains(QUEUE));
		assertThat(inspector.queues()).singleElement().satisfies((queue) -> {
			assertThat(queue.discovered()).isTrue();
			assertThat(queue.snapshot().stats().ready()).isEqualTo(1);
		});
		assertThat(operations.stats(QUEUE).ready()).isEqualTo(1);
	}

	@Test
	void fewerShardsAreRefusedWhileARemovedShardHoldsJobs() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		String last = operations.getStore().queueShards().shards(QUEUE).get(SHARDS - 1);
		String id = idOn(operations, last);
		dispatcher.dispatch(JobRequest.of("work", "left").id(id).build());
		RedisJobQueueOperations fewer = operations(SHARDS - 1);
		assertThatIllegalStateException().isThrownBy(() -> fewer.getListenerOperations().checkDataModel(QUEUE))
			.withMessageContaining("still holds jobs")
			.withMessageContaining("Drain the queue with redq.queues." + QUEUE + ".shards=" + SHARDS);
		assertThat(operations.cancel(QUEUE, id)).isTrue();
		fewer.getListenerOperations().checkDataModel(QUEUE);
		assertThat(fewer.getStore().queueShards().shards(QUEUE)).hasSize(SHARDS - 1);
	}

	@Test
	void aBatchOnAShardedQueueEndsOnceAndReadsItsMembersResultsOnEveryShard() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		// the jobs of one call without keys go to one shard: groups spread these over all
		List<String> shards = operations.getStore().queueShards().shards(QUEUE);
		List<JobRequest> members = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			String group = idOn(operations, shards.get(i % shards.size()), "group" + i + "-");
			members.add(JobRequest.of("work", "m" + i).group(group).build());
		}
		BatchResult batch = dispatcher
			.dispatchBatch(BatchRequest.of(members).onComplete(JobRequest.of("work", "done").build()).build());
		assertThat(operations.getStore().queueShards().shards(QUEUE))
			.allMatch((shard) -> template(operations).opsForHash().size(operations.getStore().keys(shard).jobs()) > 0);
		Map<String, String> results = new HashMap<>();
		List<Lease> leases = new ArrayList<>();
		for (ReservedJob job : reserve(operations, 9)) {
			leases.add(job.lease());
			results.put(job.id(), "\"r-" + job.id() + "\"");
		}
		ListenerOperations listener = operations.getListenerOperations();
		assertThat(listener.getLeaseOperations().ack(QUEUE, leases, results)).isEmpty();
		listener.handOver(QUEUE);
		assertThat(operations.getBatchOperations().find(batch.batchId()).get().state())
			.isEqualTo(BatchStatus.State.SUCCEEDED);
		listener.handOver(QUEUE);
		assertThat(operations.stats(QUEUE).ready()).as("the callback, once").isEqualTo(1);
		List<String> expected = batch.members()
			.stream()
			.map((member) -> QUEUE + " " + member.id() + " r-" + member.id())
			.toList();
		assertThat(memberResults(operations, batch)).containsExactlyInAnyOrderElementsOf(expected);
		// a dashboard-only application: no listener, no redq.queues.<queue>.shards
		assertThat(memberResults(operationsWithoutShardCount(), batch)).containsExactlyInAnyOrderElementsOf(expected);
	}

	private static List<String> memberResults(RedisJobQueueOperations operations, BatchResult batch) {
		return operations.getBatchOperations()
			.memberResults(batch.batchId(), String.class, 0, 10)
			.stream()
			.map((result) -> result.member().queue() + " " + result.member().id() + " " + result.value().orElse(null))
			.toList();
	}

	@Test
	void aBatchCancelCancelsItsPendingMembersOnEveryShard() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		List<JobRequest> members = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			members.add(JobRequest.of("work", "m" + i).build());
		}
		BatchResult batch = dispatcher
			.dispatchBatch(BatchRequest.of(members).onComplete(JobRequest.of("work", "done").build()).build());
		ReservedJob running = reserve(operations, 1).get(0);
		assertThat(dispatcher.cancelBatch(batch.batchId())).isTrue();
		assertThat(operations.stats(QUEUE).ready()).isZero();
		ListenerOperations listener = operations.getListenerOperations();
		listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()));
		listener.handOver(QUEUE);
		BatchStatus status = operations.getBatchOperations().find(batch.batchId()).get();
		assertThat(status.state()).isEqualTo(BatchStatus.State.CANCELLED);
		assertThat(status.cancelled()).isEqualTo(8);
		listener.handOver(QUEUE);
		assertThat(operations.stats(QUEUE).ready()).as("the callback").isEqualTo(1);
	}

	@Test
	void anUnconfirmedAddIsSettledByItsMembersLinksOnEveryShard() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		BatchResult batch = dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("work", "adder").build())).build());
		ReservedJob adder = reserve(operations, 1).get(0);
		// the last shard first, so that a late enqueue reaches another shard than the
		// first
		List<String> shards = new ArrayList<>(operations.getStore().queueShards().shards(QUEUE));
		Collections.reverse(shards);
		List<String> enqueued = shards.stream().map((shard) -> idOn(operations, shard, "a-")).toList();
		List<String> lost = shards.stream().map((shard) -> idOn(operations, shard, "lost-")).toList();
		BatchCreationOperations batches = operations.getBatchOperations().getCreationOperations();
		batches.add(batch.batchId(), adder.id(), QUEUE, "call", enqueued);
		batches.add(batch.batchId(), adder.id(), QUEUE, "lost-call", lost);
		EnqueueOperations enqueue = operations.getEnqueueOperations();
		enqueue.enqueueOnce(QUEUE, "call", commands(enqueued), Duration.ofMinutes(1), batch.batchId());
		// the instance dies before it confirms the adds; the adding member's run ends
		ListenerOperations listener = operations.getListenerOperations();
		listener.getLeaseOperations().ack(QUEUE, List.of(adder.lease()));
		listener.handOver(QUEUE);
		assertThat(operations.getBatchOperations().find(batch.batchId()).get()).isEqualTo(
				new BatchStatus(batch.batchId(), BatchStatus.State.RUNNING, BatchDeathPolicy.CARRY_ON, 7, 3, 1, 0, 3));
		// the lost enqueue comes late: it changes nothing on any shard
		assertThatIllegalStateException().isThrownBy(
				() -> enqueue.enqueueOnce(QUEUE, "lost-call", commands(lost), Duration.ofMinutes(1), batch.batchId()))
			.withMessageContaining("nothing was enqueued");
		assertThat(operations.stats(QUEUE).ready()).isEqualTo(3);
	}

	@Test
	void aBatchCancelFromAnApplicationWithoutTheShardCountForestallsAnAddOnEveryShard() {
		RedisJobQueueOperations operations = operations(SHARDS);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		BatchResult batch = dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("work", "adder").build())).build());
		ReservedJob adder = reserve(operations, 1).get(0);
		// the first shard last: its refusal ends the late enqueue
		List<String> shards = new ArrayList<>(operations.getStore().queueShards().shards(QUEUE));
		Collections.reverse(shards);
		List<String> added = shards.stream().map((shard) -> idOn(operations, shard, "added-")).toList();
		operations.getBatchOperations()
			.getCreationOperations()
			.add(batch.batchId(), adder.id(), QUEUE, "add-call", added);
		// a dashboard-only application: no listener, no redq.queues.<queue>.shards
		assertThat(dispatcher(operationsWithoutShardCount()).cancelBatch(batch.batchId())).isTrue();
		assertThatIllegalStateException()
			.isThrownBy(() -> operations.getEnqueueOperations()
				.enqueueOnce(QUEUE, "add-call", commands(added), Duration.ofMinutes(1), batch.batchId()))
			.withMessageContaining("nothing was enqueued");
		assertThat(operations.stats(QUEUE).ready()).as("no added member on any shard").isZero();
		ListenerOperations listener = operations.getListenerOperations();
		listener.getLeaseOperations().ack(QUEUE, List.of(adder.lease()));
		listener.handOver(QUEUE);
		assertThat(operations.getBatchOperations().find(batch.batchId()).get().state())
			.isEqualTo(BatchStatus.State.CANCELLED);
	}

	private static List<EnqueueCommand> commands(List<String> ids) {
		return ids.stream()
			.map((id) -> new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"work\",\"maxAttempts\":1,\"timeout\":0,\"payload\":\"x\"}"))
			.toList();
	}

	@Test
	void aChainOnAShardedQueueRunsItsStepsInOrderAndReadsTheirResults() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		operations.getStore().setShards("plain", 1);
		List<JobRequest> steps = new ArrayList<>();
		for (int i = 1; i <= 6; i++) {
			// steps 3 and 4 go to another queue, to and from the sharded one
			steps.add(JobRequest.of("work", "s" + i).queue((i == 3 || i == 4) ? "plain" : QUEUE).build());
		}
		ChainResult chain = dispatcher.dispatchChain(ChainRequest.of(steps).build());
		ListenerOperations listener = operations.getListenerOperations();
		for (int step = 1; step <= 6; step++) {
			String queue = (step == 3 || step == 4) ? "plain" : QUEUE;
			assertThat(operations.stats(QUEUE).ready() + operations.stats("plain").ready()).as("one step at a time")
				.isEqualTo(1);
			ReservedJob job = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
			assertThat(job.id()).isEqualTo(chain.chainId() + ":" + step);
			listener.getLeaseOperations().ack(queue, List.of(job.lease()), Map.of(job.id(), "\"r" + step + "\""));
			listener.handOver(queue);
		}
		assertThat(operations.getChainOperations().find(chain.chainId()).get().state())
			.isEqualTo(ChainStatus.State.SUCCEEDED);
		for (int step = 1; step <= 6; step++) {
			assertThat(operations.getChainOperations().stepResult(chain.chainId(), step, String.class))
				.contains("r" + step);
		}
	}

	@Test
	void aChainCancelOnAShardedQueueCancelsItsStepAndEnqueuesNoLaterOne() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		ChainResult chain = dispatcher.dispatchChain(
				ChainRequest
					.of(JobRequest.of("work", "a").build(), JobRequest.of("work", "b").build(),
							JobRequest.of("work", "c").build())
					.build());
		ListenerOperations listener = operations.getListenerOperations();
		ReservedJob first = listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		listener.getLeaseOperations().ack(QUEUE, List.of(first.lease()));
		listener.handOver(QUEUE);
		assertThat(operations.stats(QUEUE).ready()).isEqualTo(1);
		assertThat(dispatcher.cancelChain(chain.chainId())).isTrue();
		assertThat(operations.stats(QUEUE).ready()).isZero();
		listener.handOver(QUEUE);
		assertThat(operations.getChainOperations().find(chain.chainId()).get().state())
			.isEqualTo(ChainStatus.State.CANCELLED);
		assertThat(operations.stats(QUEUE).ready()).as("no later step").isZero();
	}

	private List<ReservedJob> reserve(RedisJobQueueOperations operations, int count) {
		List<ReservedJob> reserved = new ArrayList<>();
		await().atMost(DEADLINE).until(() -> {
			reserved.addAll(operations.getListenerOperations()
				.reserve(QUEUE, count - reserved.size(), Duration.ofMinutes(1))
				.jobs());
			return reserved.size() == count;
		});
		return reserved;
	}

	String idOn(RedisJobQueueOperations operations, String shard) {
		return idOn(operations, shard, "id-");
	}

	String idOn(RedisJobQueueOperations operations, String shard, String prefix) {
		for (int i = 0;; i++) {
			if (operations.getStore().shardChoice().shardOf(QUEUE, prefix + i).equals(shard)) {
				return prefix + i;
			}
		}
	}

	String groupOn(RedisJobQueueOperations operations, String shard) {
		return "group" + idOn(operations, shard);
	}

	/**
	 * Dispatch one ready job to the first shard, two to the second and so on, so that
	 * each shard's counts tell it apart.
	 */
	private void dispatchOneMoreEachShard(RedisJobQueueOperations operations, RedisJobDispatcher dispatcher,
			List<String> shards) {
		for (int i = 0; i < shards.size(); i++) {
			for (int job = 0; job <= i; job++) {
				dispatcher.dispatch(
						JobRequest.of("work", "x").id(idOn(operations, shards.get(i), "job" + job + "-")).build());
			}
		}
	}

	private StringRedisTemplate template(RedisJobQueueOperations operations) {
		return operations.getStore().getTemplate();
	}

	JobListenerContainer start(RedisJobQueueOperations operations, int concurrency) {
		JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
				JsonMapper.shared());
		factory.getContainerProperties().setConcurrency(concurrency);
		factory.getContainerProperties().setBatchSize(concurrency);
		factory.getContainerProperties().setPrefetch(0);
		factory.getContainerProperties().setPollTimeout(Duration.ofMinutes(1));
		factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
		factory.getContainerProperties().setMaxRunning(this.maxRunning);
		JobListenerContainer container = factory.createContainer(QUEUE,
				List.of(new StringJobHandler(JOB, (payload, context) -> {
					this.order.add(context.getId());
					this.runs.computeIfAbsent(context.getId(), (id) -> new AtomicInteger()).incrementAndGet();
					if ("hold".equals(payload)) {
						this.peak.accumulateAndGet(this.running.incrementAndGet(), Math::max);
						try {
							this.held.await();
						}
						finally {
							this.running.decrementAndGet();
						}
					}
					if ("fail".equals(payload)) {
						throw new IllegalStateException("Failed on purpose");
					}
				})));
		container.start();
		this.closeables.push(container::stop);
		return container;
	}

	RedisJobDispatcher dispatcher(RedisJobQueueOperations operations) {
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(operations, definitions(), JsonMapper.shared());
		this.closeables.push(dispatcher::stop);
		return dispatcher;
	}

	JobDefinitions definitions() {
		return new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return name.equals(JOB.name()) ? JOB : null;
			}

			@Override
			public List<JobDefinition> all() {
				return List.of(JOB);
			}

		};
	}

}
