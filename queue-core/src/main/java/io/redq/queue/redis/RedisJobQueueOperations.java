package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.core.CompletedJob;
import io.redq.queue.core.DeadJob;
import io.redq.queue.core.Due;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.event.QueuePausedEvent;
import io.redq.queue.event.QueueResumedEvent;
import io.redq.queue.script.QueueScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.util.Assert;

/**
 * {@link JobQueueOperations} on the queues kept in Redis under one key prefix, each call
 * one script or command. An application's configuration creates one and hands it to the
 * {@link RedisJobDispatcher} and the listener container factory, which reach the queues
 * through it.
 *
 * @author Redq team
 * @since 0.1.0
 * @see QueueScripts
 */
public class RedisJobQueueOperations implements JobQueueOperations, ApplicationEventPublisherAware {

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "redq";

	private static final Log logger = LogFactory.getLog(RedisJobQueueOperations.class);

	private final QueueStore store;

	private final StringRedisTemplate redis;

	private final QueueScripts scripts;

	private final EnqueueOperations enqueueOperations;

	private final ListenerOperations listenerOperations;

	private final BatchOperations batchOperations;

	private final ChainOperations chainOperations;

	private final QueueWideOperations queueWideOperations;

	private @Nullable ApplicationEventPublisher eventPublisher;

	private @Nullable Duration timeout;

	/**
	 * Create an instance.
	 * @param connectionFactory the Redis connection factory
	 * @param scripts the queue scripts
	 * @param keyspace the keys under the prefix, e.g. {@code new Keyspace("redq")}
	 */
	public RedisJobQueueOperations(RedisConnectionFactory connectionFactory, QueueScripts scripts, Keyspace keyspace) {
		this.store = new QueueStore(connectionFactory, scripts, keyspace);
		this.redis = this.store.getTemplate();
		this.scripts = scripts;
		// one for every path, so that each job that enters a queue is reported once
		this.enqueueOperations = new EnqueueOperations(this.store);
		this.listenerOperations = new ListenerOperations(this.enqueueOperations);
		this.batchOperations = new BatchOperations(this.enqueueOperations);
		this.chainOperations = this.batchOperations.chains();
		this.queueWideOperations = new QueueWideOperations(this.store);
	}

	/**
	 * Set the longest wait for Redis to answer the calls that take no timeout of their
	 * own and read or change one job by its id ({@link #status}, {@link #progress},
	 * {@link #trigger}, {@link #reschedule}, {@link #cancel}, {@link #deadJob}) or read a
	 * queue's counts ({@link #snapshot}, {@link #stats}, {@link #shardSnapshots}), its
	 * dead jobs ({@link #deadJobs}) or whether it is paused ({@link #isPaused}): on a
	 * sharded queue a shard whose master does not answer then fails the call with a
	 * {@link QueryTimeoutException} that names the queue, and the shard where it is
	 * known, instead of holding it for Lettuce's command timeout. A change that times out
	 * is not cancelled.
	 * <p>
	 * The changes made in every shard ({@link #pause}, {@link #resume}, {@link #purge},
	 * {@link #retryDead}, {@link #deleteDead}) are made in all of them at once and waited
	 * for within the timeout too: shards that do not answer fail the call naming them,
	 * while the others have it done; repeating the call is safe.
	 * <p>
	 * Default none: Lettuce's command timeout.
	 * @param timeout the timeout, at least 1 ms
	 */
	public void setTimeout(Duration timeout) {
		Assert.isTrue(timeout.toMillis() > 0, () -> "timeout must be at least 1 ms; got " + timeout);
		this.timeout = timeout;
	}

	/**
	 * Return the longest wait for Redis to answer a call (see {@link #setTimeout}).
	 * @return the timeout, or {@code null} for Lettuce's command timeout
	 */
	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Set the metrics to report each job that enters a queue to, however it came:
	 * dispatched, added to a batch, a chain's step, a batch's callback, relayed from an
	 * outbox or a recurring tick (see {@link JobMetrics#dispatched(String, String)}).
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.enqueueOperations.setMetrics(metrics);
	}

	/**
	 * Set the number of dead jobs to keep per queue; the oldest beyond it are deleted
	 * when another job dies and by the migrator.
	 * <p>
	 * Default 10,000.
	 * @param deadLetterMaxSize the maximum number of dead jobs
	 */
	public void setDeadLetterMaxSize(int deadLetterMaxSize) {
		this.listenerOperations.setDeadLetterMaxSize(deadLetterMaxSize);
	}

	/**
	 * Set how long dead jobs are kept; older ones are deleted by the migrator and when
	 * another job dies.
	 * <p>
	 * Default 7 days.
	 * @param deadLetterTimeToLive the retention of dead jobs
	 */
	public void setDeadLetterTimeToLive(Duration deadLetterTimeToLive) {
		this.listenerOperations.setDeadLetterTimeToLive(deadLetterTimeToLive);
	}

	/**
	 * Set how many ids of completed jobs to keep per queue, with their completion time,
	 * for inspection (see {@link #completedJobs(String, int)}); older ones are dropped.
	 * <p>
	 * Default 0: a completed job leaves nothing behind.
	 * @param completedMaxSize the number of ids to keep
	 */
	public void setCompletedMaxSize(int completedMaxSize) {
		this.listenerOperations.setCompletedMaxSize(completedMaxSize);
	}

	/**
	 * Set how many replicas must have a dispatch or an acknowledgement before it counts
	 * as done: each runs on a connection of its own (see {@link ReplicaWait}), followed
	 * by Redis {@code WAIT}. A dispatch or acknowledgement that fewer replicas confirmed
	 * within the timeout throws {@link ReplicationTimeoutException}, which names its jobs
	 * (they are on the master). On a Redis Cluster, each waits for the replicas of the
	 * master that took it.
	 * <p>
	 * Default 0: no waiting, and a failover may lose the writes of the last moments.
	 * @param replicas the number of replicas
	 * @param timeout the longest wait for them
	 * @throws IllegalStateException when replicas are to be waited for with another
	 * client than Lettuce
	 */
	public void setReplicasToWaitFor(int replicas, Duration timeout) {
		this.store.setReplicaWait(new ReplicaWait(this.redis.getRequiredConnectionFactory(), replicas, timeout));
	}

	/**
	 * Return the queues in Redis these operations work on. Internal: for the other Redq
	 * components that reach the same queues, such as the recurring job scheduler.
	 * @return the store
	 */
	public QueueStore getStore() {
		return this.store;
	}

	/**
	 * Return the producers' calls on the same queues. Internal: for the
	 * {@link RedisJobDispatcher}.
	 * @return the enqueue operations
	 */
	public EnqueueOperations getEnqueueOperations() {
		return this.enqueueOperations;
	}

	/**
	 * Return the listener containers' calls on the same queues, for the
	 * {@code JobListenerContainerFactory}. Internal: applications use nothing of it.
	 * @return the listener operations
	 */
	public ListenerOperations getListenerOperations() {
		return this.listenerOperations;
	}

	/**
	 * Return the batch operations: creation, hand-over, reads and cancellation.
	 * @return the batch operations
	 */
	public BatchOperations getBatchOperations() {
		return this.batchOperations;
	}

	/**
	 * Return the chain operations: reads, the index of the chains and cancellation.
	 * @return the chain operations
	 */
	public ChainOperations getChainOperations() {
		return this.chainOperations;
	}

	@Override
	public QueueStats stats(String queue) {
		return snapshot(queue).stats();
	}

	@Override
	public QueueSnapshot snapshot(String queue) {
		return shardSnapshots(queue).stream().reduce(RedisJobQueueOperations::sum).orElseThrow();
	}

	/**
	 * Return the snapshot of each shard of a queue, which {@link #snapshot(String)} adds
	 * up: one script call per shard, all sent at once, and a read of the stored placement
	 * of a queue whose shard count this instance does not know (see "Scaling out").
	 * @param queue the queue
	 * @return the snapshots, the shard of the queue's own keys first; one for a queue of
	 * one shard
	 * @throws QueryTimeoutException when a shard did not answer within the
	 * {@link #setTimeout timeout}
	 */
	public List<QueueSnapshot> shardSnapshots(String queue) {
		List<String> shards = this.store.queueShards().shardsToOperate(queue, this.timeout);
		List<CompletableFuture<List<?>>> replies = shards.stream()
			.map((shard) -> this.store.runForListAsync(this.scripts.stats(), shard, List.of()))
			.toList();
		return AsyncCalls
			.all(replies, this.timeout,
					(i) -> "read the counts of shard '" + shards.get(i) + "' of queue '" + queue + "'")
			.stream()
			.map(RedisJobQueueOperations::snapshotOf)
			.toList();
	}

	/**
	 * Return the snapshot of a queue from those of two of its shards: the counts added up
	 * (a group lives in one shard), the longer wait, paused when either is.
	 */
	private static QueueSnapshot sum(QueueSnapshot one, QueueSnapshot other) {
		QueueStats a = one.stats();
		QueueStats b = other.stats();
		Map<Integer, Long> byPriority = new TreeMap<>(Comparator.reverseOrder());
		byPriority.putAll(one.readyByPriority());
		other.readyByPriority().forEach((level, count) -> byPriority.merge(level, count, Long::sum));
		return new QueueSnapshot(
				new QueueStats(a.ready() + b.ready(), a.delayed() + b.delayed(), a.reserved() + b.reserved(),
						a.dead() + b.dead()),
				(one.oldestReadyAge().compareTo(other.oldestReadyAge()) >= 0) ? one.oldestReadyAge()
						: other.oldestReadyAge(),
				one.paused() || other.paused(), Collections.unmodifiableMap(new LinkedHashMap<>(byPriority)),
				one.readyGroups() + other.readyGroups());
	}

	private static QueueSnapshot snapshotOf(List<?> values) {
		long oldest = QueueStore.number(values, 5);
		// then the ready jobs per level, which the script lists lowest first
		Map<Integer, Long> byPriority = new LinkedHashMap<>();
		for (int level = JobPriority.HIGHEST; level >= JobPriority.LOWEST && values.size() > 7; level--) {
			long count = QueueStore.number(values, 7 + level - JobPriority.LOWEST);
			if (count > 0) {
				byPriority.put(level, count);
			}
		}
		return new QueueSnapshot(
				new QueueStats(QueueStore.number(values, 0), QueueStore.number(values, 1), QueueStore.number(values, 2),
						QueueStore.number(values, 3)),
				(oldest >= 0) ? Duration.ofMillis(Math.max(0, QueueStore.number(values, 4) - oldest)) : Duration.ZERO,
				QueueStore.number(values, 6) == 1, Collections.unmodifiableMap(byPriority),
				(values.size() > 17) ? QueueStore.number(values, 17) : 0);
	}

	@Override
	public JobStatus status(String queue, String id) {
		return status(queue, id, this.timeout);
	}

	/**
	 * Return the status of a job as {@link #status(String, String)} does, waiting at most
	 * the given time for Redis to answer. Every shard is asked at once, so a sharded
	 * queue costs one round trip, and the answers are read the likeliest shard first.
	 * @param queue the queue
	 * @param id the job id
	 * @param timeout the longest wait, or {@code null} for the Redis command timeout
	 * @return the status
	 * @throws QueryTimeoutException when Redis did not answer within the timeout
	 */
	public JobStatus status(String queue, String id, @Nullable Duration timeout) {
		List<CompletableFuture<JobStatus>> replies = this.store.shardChoice()
			.shardsOfId(queue, id, timeout)
			.stream()
			.map((shard) -> this.store.runForListAsync(this.scripts.status(), shard, List.of(id))
				.thenApply(RedisJobQueueOperations::statusOf))
			.toList();
		// a job lives in one shard: the others know it as none
		int found = AsyncCalls.firstAccepted(replies, (status) -> status.state() != JobStatus.State.NONE, timeout,
				"read the status of job '" + id + "' of queue '" + queue + "'");
		return replies.get((found >= 0) ? found : replies.size() - 1).join();
	}

	private static JobStatus statusOf(List<?> result) {
		long at = QueueStore.number(result, 2);
		return new JobStatus(JobStatus.State.valueOf(((String) result.get(1)).toUpperCase(Locale.ROOT)),
				(at >= 0) ? Instant.ofEpochMilli(at) : null, Instant.ofEpochMilli(QueueStore.number(result, 0)));
	}

	@Override
	public @Nullable JobProgress progress(String queue, String id) {
		// the shard found has just answered: its reads that follow are not waited for
		// with the timeout
		String shard = this.store.shardChoice().shardHolding(queue, id, this.timeout);
		String envelope = (String) this.redis.opsForHash().get(this.store.keys(shard).jobs(), id);
		if (envelope == null) {
			return null;
		}
		JobEnvelope read;
		try {
			read = JobEnvelope.read(envelope);
		}
		catch (JacksonException ex) {
			return null;
		}
		Map<String, String> fields = this.listenerOperations.getProgressOperations()
			.readProgressOf(shard, id, (read != null && read.createdAt() != null) ? read.createdAt() : 0,
					List.of(ProgressFields.FRACTION, ProgressFields.MESSAGE, ProgressFields.CURSOR));
		if (fields == null) {
			return null;
		}
		String fraction = fields.get(ProgressFields.FRACTION);
		String cursor = fields.get(ProgressFields.CURSOR);
		if (fraction == null && cursor == null) {
			return null;
		}
		return new JobProgress((fraction != null) ? Double.valueOf(fraction) : null, fields.get(ProgressFields.MESSAGE),
				cursor);
	}

	@Override
	public boolean reschedule(String queue, String id, Due due) {
		return reschedule(queue, id, due, this.timeout);
	}

	/**
	 * Move a pending job to a new due time as {@link #reschedule(String, String, Due)}
	 * does, waiting at most the given time for Redis to answer.
	 * @param queue the queue
	 * @param id the job id
	 * @param due the new due time
	 * @param timeout the longest wait, or {@code null} for the Redis command timeout
	 * @return {@code false} when no job with that id is pending
	 * @throws QueryTimeoutException when Redis did not answer within the timeout; the
	 * call is not cancelled
	 */
	public boolean reschedule(String queue, String id, Due due, @Nullable Duration timeout) {
		return moveTo(queue, id, due, timeout) != 0;
	}

	@Override
	public boolean trigger(String queue, String id) {
		return moveTo(queue, id, Due.NOW, this.timeout) == 1;
	}

	private long moveTo(String queue, String id, Due due, @Nullable Duration timeout) {
		// a job lives in one shard: the others move nothing
		for (String shard : this.store.shardChoice().shardsOfId(queue, id, timeout)) {
			Long result = this.store.runOnce(this.scripts.reschedule(), shard,
					List.of(id, due.absolute() ? "a" : "d", Long.toString(due.millis())), timeout,
					"move job '" + id + "' of queue '" + queue + "' to a new due time");
			if (result != null && result != 0) {
				return result;
			}
		}
		return 0;
	}

	@Override
	public boolean cancel(String queue, String id) {
		return cancel(queue, id, this.timeout);
	}

	/**
	 * Cancel a pending job as {@link #cancel(String, String)} does, waiting at most the
	 * given time for Redis to answer.
	 * @param queue the queue
	 * @param id the job id
	 * @param timeout the longest wait, or {@code null} for the Redis command timeout
	 * @return whether a pending job, or a dispatch queued behind the running one, was
	 * removed
	 * @throws QueryTimeoutException when Redis did not answer within the timeout; the
	 * call is not cancelled
	 */
	public boolean cancel(String queue, String id, @Nullable Duration timeout) {
		// a job lives in one shard: the others cancel nothing
		for (String shard : this.store.shardChoice().shardsOfId(queue, id, timeout)) {
			Long removed = this.store.runOnce(this.scripts.cancel(), shard,
					List.of(this.store.keys(shard).progress(id)), List.of(id), timeout,
					"cancel job '" + id + "' of queue '" + queue + "'");
			if (removed != null && removed == 1L) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Set the publisher of a {@link QueuePausedEvent} or {@link QueueResumedEvent} after
	 * each {@link #pause} or {@link #resume}.
	 * <p>
	 * Default none: no events.
	 * @param eventPublisher the publisher
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	@Override
	public void pause(String queue) {
		this.queueWideOperations.pause(queue, this.timeout);
		publish(new QueuePausedEvent(this, queue));
	}

	@Override
	public void resume(String queue) {
		this.queueWideOperations.resume(queue, this.timeout);
		publish(new QueueResumedEvent(this, queue));
	}

	/**
	 * Publish an event of a change made: a listener that fails does not undo it.
	 */
	private void publish(ApplicationEvent event) {
		if (this.eventPublisher != null) {
			try {
				this.eventPublisher.publishEvent(event);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not publish " + event, ex);
			}
		}
	}

	@Override
	public boolean isPaused(String queue) {
		// the shards are paused and resumed together: the first tells
		return AsyncCalls.await(this.store.hasKeyAsync(this.store.keys(queue).paused()), this.timeout,
				"read whether queue '" + queue + "' is paused");
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The completed jobs are kept when {@link #setCompletedMaxSize(int)} is set.
	 */
	@Override
	public List<CompletedJob> completedJobs(String queue, int count) {
		// Redis reads the range 0..-1 as the whole set
		Assert.isTrue(count > 0, "count must be positive");
		Set<ZSetOperations.TypedTuple<String>> latest = this.redis.opsForZSet()
			.reverseRangeWithScores(this.store.keys(queue).completed(), 0, count - 1);
		List<CompletedJob> completed = new ArrayList<>();
		if (latest != null) {
			for (ZSetOperations.TypedTuple<String> entry : latest) {
				completed.add(new CompletedJob(entry.getValue(), Instant.ofEpochMilli(entry.getScore().longValue())));
			}
		}
		return completed;
	}

	@Override
	public List<DeadJob> deadJobs(String queue, int offset, int count) {
		// Redis reads a range that ends before it starts as counted from the end
		Assert.isTrue(offset >= 0 && count > 0, "offset must not be negative and count must be positive");
		List<String> shards = this.store.queueShards().shardsToOperate(queue, this.timeout);
		// the latest deaths of all shards are among the latest offset + count of each
		List<String> range = (shards.size() == 1) ? List.of(Integer.toString(offset), Integer.toString(count))
				: List.of("0", Integer.toString(offset + count));
		List<List<DeadJob>> read = AsyncCalls.all(shards.stream().map((shard) -> dead(shard, range)).toList(),
				this.timeout, (i) -> "read the dead jobs of shard '" + shards.get(i) + "' of queue '" + queue + "'");
		if (shards.size() == 1) {
			return read.get(0);
		}
		List<DeadJob> all = new ArrayList<>();
		read.forEach(all::addAll);
		all.sort(Comparator.comparing(DeadJob::diedAt).reversed());
		return List.copyOf(all.subList(Math.min(offset, all.size()), Math.min(offset + count, all.size())));
	}

	@Override
	public @Nullable DeadJob deadJob(String queue, String id) {
		List<CompletableFuture<List<DeadJob>>> replies = this.store.shardChoice()
			.shardsOfId(queue, id, this.timeout)
			.stream()
			.map((shard) -> dead(shard, List.of("ids", id)))
			.toList();
		// a job lives in one shard: the others know it as none
		int found = AsyncCalls.firstAccepted(replies, (jobs) -> !jobs.isEmpty(), this.timeout,
				"read dead job '" + id + "' of queue '" + queue + "'");
		return (found >= 0) ? replies.get(found).join().get(0) : null;
	}

	/** Send the read of a shard's dead jobs without blocking. */
	private CompletableFuture<List<DeadJob>> dead(String shard, List<String> args) {
		return this.store.runForListAsync(this.scripts.dead(), shard, args).thenApply((values) -> {
			List<DeadJob> dead = new ArrayList<>(values.size() / 5);
			for (int i = 0; i < values.size(); i += 5) {
				dead.add(new DeadJob((String) values.get(i),
						Instant.ofEpochMilli((long) Double.parseDouble((String) values.get(i + 1))),
						(String) values.get(i + 2), (String) values.get(i + 3),
						Integer.parseInt((String) values.get(i + 4))));
			}
			return dead;
		});
	}

	@Override
	public long retryDead(String queue, Collection<String> ids) {
		return this.queueWideOperations.retryDead(queue, ids, this.timeout);
	}

	@Override
	public long deleteDead(String queue, Collection<String> ids) {
		return this.queueWideOperations.deleteDead(queue, ids, this.timeout);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Finds the keys of the queue's gates and recurring jobs with {@code SCAN}, on the
	 * node that serves the queue's slot on a Redis Cluster, then deletes every job, gate
	 * and latest recurring tick of the queue in one script call, so that a job dispatched
	 * meanwhile is purged whole or kept whole. It keeps the pause switches (the queue's
	 * and each recurring job's), the lease token counter, the data model, the replies
	 * kept for re-sent calls and the holds of the runs still going on, so that a place a
	 * run took after the {@code SCAN} is freed as its hold expires should its worker die.
	 */
	@Override
	public void purge(String queue) {
		this.queueWideOperations.purge(queue, this.timeout);
	}

}
