package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisNoScriptException;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.script.QueueScripts;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

/**
 * The calls of the listener containers: reserve jobs under a lease, migrate due and
 * expired jobs, and wait for a wake-up. The leases are started, extended, acknowledged,
 * failed and released through the {@link #getLeaseOperations() lease operations}, a job's
 * gates passed and left through the {@link #getGateOperations() gate operations}, its
 * progress and result written through the {@link #getProgressOperations() progress
 * operations}.
 *
 * <p>
 * Every time a script records or compares comes from the Redis clock ({@code TIME}),
 * never from this JVM.
 *
 * @author Redq team
 * @since 0.1.0
 * @see QueueScripts
 */
public final class ListenerOperations {

	/** The most due jobs, and the most expired leases, that one migrator pass moves. */
	public static final int MIGRATION_BATCH_SIZE = 1000;

	/** The default number of dead jobs kept per queue. */
	public static final int DEFAULT_DEAD_LETTER_MAX_SIZE = 10_000;

	/** The default time dead jobs are kept. */
	public static final Duration DEFAULT_DEAD_LETTER_TIME_TO_LIVE = Duration.ofDays(7);

	/**
	 * The default number of times a job's lease may expire before a renewal confirmed its
	 * run started, without using an attempt.
	 */
	public static final int DEFAULT_MAX_STALLS = 1;

	private final QueueStore store;

	private final QueueScripts scripts;

	private final Duration longestBlockingWait;

	private final boolean pipelinedWakeUp;

	private final Map<String, ShardTurns> shardTurns = new ConcurrentHashMap<>();

	private final Map<RedisConnection, ShardWakeUps> wakeUps = Collections.synchronizedMap(new WeakHashMap<>());

	private int deadLetterMaxSize = DEFAULT_DEAD_LETTER_MAX_SIZE;

	private Duration deadLetterTimeToLive = DEFAULT_DEAD_LETTER_TIME_TO_LIVE;

	private int completedMaxSize;

	private final BatchOperations batchOperations;

	private final GateOperations gateOperations;

	private final ProgressOperations progressOperations;

	private final LeaseOperations leaseOperations;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public ListenerOperations(QueueStore store) {
		this(new EnqueueOperations(store));
	}

	/**
	 * Create an instance whose workers deliver batch callbacks and later chain steps with
	 * the given operations, which report the jobs that enter queues.
	 */
	ListenerOperations(EnqueueOperations enqueueOperations) {
		QueueStore store = enqueueOperations.getStore();
		this.store = store;
		this.scripts = store.getScripts();
		this.batchOperations = new BatchOperations(enqueueOperations);
		this.gateOperations = new GateOperations(enqueueOperations);
		this.progressOperations = new ProgressOperations(store);
		this.leaseOperations = new LeaseOperations(enqueueOperations, this.progressOperations);
		RedisConnectionFactory connectionFactory = store.getTemplate().getRequiredConnectionFactory();
		this.longestBlockingWait = longestBlockingWait(connectionFactory);
		this.pipelinedWakeUp = connectionFactory instanceof LettuceConnectionFactory;
	}

	/**
	 * Return the calls on the leases of the jobs of the same queues: start, extend,
	 * acknowledge, fail and release.
	 * @return the lease operations
	 */
	public LeaseOperations getLeaseOperations() {
		return this.leaseOperations;
	}

	/**
	 * Return the calls on the gates of the jobs of the same queues.
	 * @return the gate operations
	 */
	public GateOperations getGateOperations() {
		return this.gateOperations;
	}

	/**
	 * Return the calls on the progress and results of the jobs of the same queues, and
	 * their settings.
	 * @return the progress operations
	 */
	public ProgressOperations getProgressOperations() {
		return this.progressOperations;
	}

	/**
	 * Check the data model of a queue, as every script does first: an older model is
	 * upgraded, a newer one refused; and its shards (see {@link QueueStore#setShards}).
	 * One round trip per shard, and one for the shards' placement, for an instance that
	 * starts serving the queue.
	 * @param queue the queue
	 * @return the data model of the scripts, now the queue's
	 * @throws io.redq.queue.core.DataModelMismatchException when the queue is kept in a
	 * newer data model
	 * @throws IllegalStateException when fewer shards are configured than stored while a
	 * shard that would be removed holds jobs, or a sharded queue runs without Lettuce
	 */
	public long checkDataModel(String queue) {
		this.store.queueShards().checkShards(queue);
		Assert.state(this.pipelinedWakeUp || this.store.queueShards().shards(queue).size() == 1,
				() -> "Queue '" + queue + "' has " + this.store.queueShards().shards(queue).size()
						+ " shards, whose idle "
						+ "containers wait for a wake-up on every shard at once, which needs Lettuce: use Spring Data "
						+ "Redis's Lettuce client, or one shard");
		long model = 0;
		for (String shard : this.store.queueShards().shards(queue)) {
			Long shardModel = this.store.runForLong(this.scripts.model(), shard);
			model = (shardModel != null) ? shardModel : 0;
		}
		return model;
	}

	/**
	 * Set the number of dead jobs to keep per queue.
	 * @param deadLetterMaxSize the maximum number of dead jobs
	 * @see RedisJobQueueOperations#setDeadLetterMaxSize(int)
	 */
	public void setDeadLetterMaxSize(int deadLetterMaxSize) {
		Assert.isTrue(deadLetterMaxSize >= 0, "deadLetterMaxSize must not be negative");
		this.deadLetterMaxSize = deadLetterMaxSize;
		this.leaseOperations.setDeadLetterMaxSize(deadLetterMaxSize);
	}

	/**
	 * Set how long dead jobs are kept.
	 * @param deadLetterTimeToLive the retention of dead jobs
	 * @see RedisJobQueueOperations#setDeadLetterTimeToLive(Duration)
	 */
	public void setDeadLetterTimeToLive(Duration deadLetterTimeToLive) {
		this.deadLetterTimeToLive = deadLetterTimeToLive;
		this.leaseOperations.setDeadLetterTimeToLive(deadLetterTimeToLive);
	}

	/**
	 * Set how many ids of completed jobs to keep per queue.
	 * @param completedMaxSize the number of ids to keep
	 * @see RedisJobQueueOperations#setCompletedMaxSize(int)
	 */
	public void setCompletedMaxSize(int completedMaxSize) {
		Assert.isTrue(completedMaxSize >= 0, "completedMaxSize must not be negative");
		this.completedMaxSize = completedMaxSize;
		this.gateOperations.setCompletedMaxSize(completedMaxSize);
		this.leaseOperations.setCompletedMaxSize(completedMaxSize);
	}

	/**
	 * Reserve up to {@code max} ready jobs under a lease, at most
	 * {@value QueueStore#MAX_BATCH_SIZE}. A ready id whose envelope is missing (deleted
	 * outside Redq) is recorded dead with the reason instead.
	 * @param queue the queue
	 * @param max the most jobs to reserve
	 * @param lease how long the lease lasts unless extended
	 * @return the reservation
	 */
	public Reservation reserve(String queue, int max, Duration lease) {
		return reserve(queue, max, lease, List.of());
	}

	private Reservation reserve(String queue, int max, Duration lease, List<String> woken) {
		List<String> shards = this.store.queueShards().shards(queue);
		if (shards.size() == 1) {
			return reservation(queue, this.store.runForList(this.scripts.reserve(), queue, reserveArgs(max, lease)));
		}
		ShardTurns turns = this.shardTurns.computeIfAbsent(queue, (name) -> new ShardTurns());
		Reservation all = null;
		for (String shard : turns.order(shards, woken)) {
			int left = Math.min(max - ((all != null) ? all.jobs().size() : 0), QueueStore.MAX_BATCH_SIZE);
			if (left <= 0) {
				break;
			}
			Reservation reservation = reservation(shard,
					this.store.runForList(this.scripts.reserve(), shard, reserveArgs(left, lease)));
			turns.found(shard, left, reservation.jobs().size());
			all = (all != null) ? all.and(reservation) : reservation;
		}
		return all;
	}

	/**
	 * Wait until a listener is woken for the queue or the timeout passes, then reserve
	 * jobs as {@link #reserve} does. With Lettuce, in one round trip: the reservation is
	 * sent right behind the wait on the same connection, and Redis runs it the moment the
	 * wait ends, so that a job dispatched to an idle queue is reserved without waiting
	 * for this JVM (Jedis reads a pipeline's replies with its socket timeout, which would
	 * end the wait: with it, the reservation is sent after the wait). Runs on a
	 * connection of its own, since the wait holds its connection. With Lettuce, the wait
	 * ends a second (at most half the time) before the command timeout
	 * ({@code spring.data.redis.timeout}), so that a long timeout does not make every
	 * idle wait fail.
	 * @param connection a connection used for nothing else meanwhile (see
	 * {@link #openWakeUpConnection()})
	 * @param queue the queue
	 * @param max the most jobs to reserve
	 * @param lease how long the lease lasts unless extended
	 * @param timeout how long to wait at most
	 * @return the reservation, made when the wait ended
	 */
	public Reservation reserveOnWakeUp(RedisConnection connection, String queue, int max, Duration lease,
			Duration timeout) {
		// a connection closed by a container's stop would open another for the pipeline
		Assert.state(!connection.isClosed(), "The wake-up connection is closed");
		byte[] wake = this.store.keys(queue).wake().getBytes(StandardCharsets.UTF_8);
		long millis = Math.max(1, Math.min(timeout.toMillis(), this.longestBlockingWait.toMillis()));
		List<String> shards = this.store.queueShards().shards(queue);
		if (shards.size() > 1) {
			List<String> woken = this.wakeUps
				.computeIfAbsent(connection, (opened) -> new ShardWakeUps(this.store, opened))
				.await(shards, millis);
			return reserve(queue, max, lease, woken);
		}
		if (!this.pipelinedWakeUp) {
			connection.zSetCommands().bZPopMin(wake, millis, TimeUnit.MILLISECONDS);
			return reserve(queue, max, lease);
		}
		List<String> keys = this.store.keys(queue).all();
		List<String> keysAndArgs = new ArrayList<>(keys);
		keysAndArgs.addAll(reserveArgs(max, lease));
		List<Object> results;
		connection.openPipeline();
		try {
			connection.zSetCommands().bZPopMin(wake, millis, TimeUnit.MILLISECONDS);
			connection.scriptingCommands()
				.evalSha(this.scripts.reserve().getSha1(), ReturnType.MULTI, keys.size(),
						AsyncScripts.bytes(keysAndArgs));
			results = connection.closePipeline();
		}
		catch (RedisPipelineException ex) {
			Throwable failure = firstFailure(ex);
			if (NestedExceptionUtils.getMostSpecificCause(failure) instanceof RedisNoScriptException) {
				// Redis lost its scripts (restarted or flushed): reserve loads the script
				return reserve(queue, max, lease);
			}
			throw AsyncScripts.translated(failure);
		}
		@SuppressWarnings("unchecked")
		List<Object> reply = (List<Object>) results.get(1);
		return reservation(queue, AsyncScripts.decoded(reply));
	}

	private List<String> reserveArgs(int max, Duration lease) {
		return List.of(Integer.toString(Math.min(max, QueueStore.MAX_BATCH_SIZE)), QueueStore.millis(lease),
				QueueStore.millis(this.deadLetterTimeToLive), Integer.toString(this.deadLetterMaxSize));
	}

	private static Reservation reservation(String shard, List<?> result) {
		int jobsEnd = result.size() - (int) QueueStore.number(result, 2);
		List<ReservedJob> jobs = new ArrayList<>((jobsEnd - 3) / 4);
		for (int i = 3; i < jobsEnd; i += 4) {
			jobs.add(new ReservedJob((String) result.get(i), (String) result.get(i + 1),
					((Number) result.get(i + 2)).intValue(), ShardNames.shardToken(shard, (String) result.get(i + 3))));
		}
		return new Reservation(QueueStore.number(result, 0), QueueStore.number(result, 1), jobs,
				QueueStore.strings(result.subList(jobsEnd, result.size())));
	}

	private static Throwable firstFailure(RedisPipelineException ex) {
		for (Object result : ex.getPipelineResult()) {
			if (result instanceof Throwable failure) {
				return failure;
			}
		}
		return ex;
	}

	/**
	 * Move due delayed jobs to ready, recover expired leases and delete dead jobs beyond
	 * the age or size limit, at most {@value #MIGRATION_BATCH_SIZE} of each, and trim the
	 * completed ids to their size limit, with {@value #DEFAULT_MAX_STALLS} stall(s)
	 * allowed.
	 * @param queue the queue
	 * @return what the pass did
	 * @see #migrate(String, int)
	 */
	public Migration migrate(String queue) {
		return migrate(queue, DEFAULT_MAX_STALLS);
	}

	/**
	 * Move due delayed jobs to ready, recover expired leases and delete dead jobs beyond
	 * the age or size limit, at most {@value #MIGRATION_BATCH_SIZE} of each, and trim the
	 * completed ids to their size limit. An expired lease whose run started (a renewal
	 * said so) used its attempt; one whose run no renewal confirmed is a stall: the job
	 * gets its attempt back, up to {@code maxStalls} times in its life, and uses it after
	 * that, so that a job that kills its worker still ends dead.
	 * @param queue the queue
	 * @param maxStalls how many stalls a job is allowed without using an attempt
	 * @return what the pass did
	 */
	public Migration migrate(String queue, int maxStalls) {
		Migration all = null;
		for (String shard : this.store.queueShards().shards(queue)) {
			Migration migration = migrateShard(shard, maxStalls);
			all = (all != null) ? all.and(migration) : migration;
		}
		return all;
	}

	private Migration migrateShard(String shard, int maxStalls) {
		List<?> result = this.store.runForList(this.scripts.migrate(), shard,
				List.of(Integer.toString(MIGRATION_BATCH_SIZE), Integer.toString(this.deadLetterMaxSize),
						QueueStore.millis(this.deadLetterTimeToLive), Integer.toString(this.completedMaxSize),
						Integer.toString(maxStalls)));
		return new Migration(QueueStore.number(result, 0), (int) QueueStore.number(result, 1),
				(int) QueueStore.number(result, 2), QueueStore.number(result, 3), (int) QueueStore.number(result, 4),
				// scripts from before batches return five numbers
				result.size() > 5 && QueueStore.number(result, 5) > 0);
	}

	/**
	 * Hand the completions of a queue's batch members over to their batches, at most
	 * {@value BatchOperations#HAND_OVER_BATCH_SIZE}, and enqueue the callbacks of the
	 * batches that ended (see {@link BatchOperations#handOver(String)}).
	 * @param queue the queue
	 * @return how many completions were handed over
	 */
	public int handOver(String queue) {
		int handedOver = 0;
		for (String shard : this.store.queueShards().shards(queue)) {
			handedOver += this.batchOperations.handOver(shard);
		}
		return handedOver;
	}

	/**
	 * Return a batch's state and counts (see {@link BatchOperations#find(String)}).
	 * @param batchId the batch id
	 * @return the batch, or empty when none is kept under that id
	 */
	public Optional<BatchStatus> findBatch(String batchId) {
		return this.batchOperations.find(batchId);
	}

	/**
	 * Return a page of the results of a batch's members that succeeded (see
	 * {@link BatchOperations#memberResults}).
	 * @param <T> the results' type
	 * @param batchId the batch id
	 * @param type the results' type
	 * @param offset how many to skip
	 * @param count how many to return, at most 1,000
	 * @return the members and their results
	 */
	public <T> List<BatchMemberResult<T>> batchResults(String batchId, Class<T> type, int offset, int count) {
		return this.batchOperations.memberResults(batchId, type, offset, count);
	}

	/**
	 * Return the result of a chain's step (see {@link ChainOperations#stepResult}).
	 * @param <T> the result's type
	 * @param chainId the chain id
	 * @param step the step's position, from 1
	 * @param type the result's type
	 * @return the result, empty when the step returned nothing or its result expired
	 */
	public <T> Optional<T> chainStepResult(String chainId, int step, Class<T> type) {
		return this.batchOperations.chains().stepResult(chainId, step, type);
	}

	/**
	 * Open a connection for {@link #reserveOnWakeUp}: a blocking command holds its
	 * connection, so the wait needs one of its own. The caller closes it.
	 * @return a new connection
	 */
	public RedisConnection openWakeUpConnection() {
		return this.store.getTemplate().getRequiredConnectionFactory().getConnection();
	}

	private static Duration longestBlockingWait(RedisConnectionFactory connectionFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return Duration.ofMillis(Long.MAX_VALUE);
		}
		Duration commandTimeout = lettuce.getClientConfiguration().getCommandTimeout();
		Duration half = commandTimeout.dividedBy(2);
		return commandTimeout.minus((half.compareTo(Duration.ofSeconds(1)) < 0) ? half : Duration.ofSeconds(1));
	}

}
