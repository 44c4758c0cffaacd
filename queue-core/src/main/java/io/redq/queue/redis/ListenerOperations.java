package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisNoScriptException;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

/**
 * The calls of the listener containers: reserve jobs under a lease, acknowledge, fail,
 * extend and release them, migrate due and expired jobs, and wait for a wake-up. A job's
 * gates are passed and left through the {@link #getGateOperations() gate operations}, its
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

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public ListenerOperations(QueueStore store) {
		this.store = store;
		this.scripts = store.getScripts();
		this.batchOperations = new BatchOperations(store);
		this.gateOperations = new GateOperations(store);
		this.progressOperations = new ProgressOperations(store);
		RedisConnectionFactory connectionFactory = store.getTemplate().getRequiredConnectionFactory();
		this.longestBlockingWait = longestBlockingWait(connectionFactory);
		this.pipelinedWakeUp = connectionFactory instanceof LettuceConnectionFactory;
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
		this.store.checkShards(queue);
		Assert.state(this.pipelinedWakeUp || this.store.shards(queue).size() == 1,
				() -> "Queue '" + queue + "' has " + this.store.shards(queue).size() + " shards, whose idle "
						+ "containers wait for a wake-up on every shard at once, which needs Lettuce: use Spring Data "
						+ "Redis's Lettuce client, or one shard");
		long model = 0;
		for (String shard : this.store.shards(queue)) {
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
	}

	/**
	 * Set how long dead jobs are kept.
	 * @param deadLetterTimeToLive the retention of dead jobs
	 * @see RedisJobQueueOperations#setDeadLetterTimeToLive(Duration)
	 */
	public void setDeadLetterTimeToLive(Duration deadLetterTimeToLive) {
		this.deadLetterTimeToLive = deadLetterTimeToLive;
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
		List<String> shards = this.store.shards(queue);
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
		List<String> shards = this.store.shards(queue);
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
					((Number) result.get(i + 2)).intValue(), QueueStore.shardToken(shard, (String) result.get(i + 3))));
		}
		return new Reservation(QueueStore.number(result, 0), QueueStore.number(result, 1), jobs,
				strings(result.subList(jobsEnd, result.size())));
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
	 * Acknowledge completed jobs that returned no result.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @return the ids refused because another worker reserved their job since
	 * @see #ack(String, Collection, Map)
	 */
	public List<String> ack(String queue, Collection<Lease> leases) {
		return ack(queue, leases, Map.of());
	}

	/**
	 * Acknowledge completed jobs: they are gone from Redis, but for the results they
	 * returned, kept for the {@link ProgressOperations#setResultTimeToLive result time to
	 * live}; the callers waiting for them are told. A run whose lease ended (its worker
	 * stalled past it) is accepted as long as no worker reserved its job since: the job
	 * is taken out of the ready list, the delayed or dead set where it waits. Each
	 * {@value QueueStore#MAX_BATCH_SIZE} are acknowledged in one script call.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @param results the results by job id, in Redq's wire format, of the jobs that
	 * returned one (a refused job's result is not kept)
	 * @return the ids refused because another worker reserved their job since
	 * @throws ReplicationTimeoutException when fewer replicas than required (see
	 * {@link RedisJobQueueOperations#setReplicasToWaitFor(int, Duration)}) confirmed
	 * acknowledgements within the timeout: it names their jobs, which are acknowledged on
	 * the master
	 */
	public List<String> ack(String queue, Collection<Lease> leases, Map<String, String> results) {
		return ack(queue, leases, results, Set.of());
	}

	/**
	 * Acknowledge completed jobs as {@link #ack(String, Collection, Map)} does, and
	 * delete the progress of those that {@link ProgressOperations#writeProgress wrote
	 * some} with their completion.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @param results the results by job id, in Redq's wire format
	 * @param withProgress the ids of the jobs that wrote progress
	 * @return the ids refused because another worker reserved their job since
	 */
	public List<String> ack(String queue, Collection<Lease> leases, Map<String, String> results,
			Set<String> withProgress) {
		List<String> refused = new ArrayList<>();
		List<String> unconfirmed = new ArrayList<>();
		ReplicationTimeoutException timeout = null;
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, leases).entrySet()) {
			try {
				refused.addAll(ackShard(shard.getKey(), shard.getValue(), results, withProgress));
			}
			catch (ReplicationTimeoutException ex) {
				// the other shards are acknowledged all the same
				timeout = (timeout != null) ? timeout : ex;
				unconfirmed.addAll(ex.getJobIds());
			}
		}
		if (timeout != null) {
			throw timeout.forJobs(unconfirmed);
		}
		return refused;
	}

	private List<String> ackShard(String shard, List<Lease> all, Map<String, String> results,
			Set<String> withProgress) {
		QueueKeys queueKeys = this.store.keys(shard);
		List<String> refused = new ArrayList<>();
		List<String> unconfirmed = new ArrayList<>();
		ReplicationTimeoutException timeout = null;
		for (int from = 0; from < all.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<Lease> batch = all.subList(from, Math.min(all.size(), from + QueueStore.MAX_BATCH_SIZE));
			List<String> keys = queueKeys.all();
			// a result to keep, or '' to delete a progress hash
			List<String> writes = new ArrayList<>();
			for (Lease lease : batch) {
				String result = results.get(lease.id());
				if (result != null) {
					keys = write(keys, queueKeys.result(lease.id()), writes, lease.id(), result);
				}
				if (withProgress.contains(lease.id())) {
					keys = write(keys, queueKeys.progress(lease.id()), writes, lease.id(), "");
				}
			}
			List<String> args = new ArrayList<>();
			args.add(Integer.toString(this.completedMaxSize));
			args.add(Integer.toString(writes.size() / 2));
			args.add(QueueStore.millis(this.progressOperations.getResultTimeToLive()));
			args.addAll(writes);
			args.addAll(leaseArgs(batch));
			try {
				refused.addAll(strings(this.store.runForListOnReplicas(this.scripts.ack(), keys, args,
						"the acknowledgement of " + batch.size() + " job(s) of queue '" + shard + "'")));
			}
			catch (ReplicationTimeoutException ex) {
				// the batches after it are acknowledged all the same
				timeout = (timeout != null) ? timeout : ex;
				batch.forEach((lease) -> unconfirmed.add(lease.id()));
			}
		}
		if (timeout != null) {
			throw timeout.forJobs(unconfirmed);
		}
		return refused;
	}

	/**
	 * Add a key that an acknowledgement writes after the queue's, and what it writes
	 * there.
	 * @return the keys, copied before the first key is added
	 */
	private static List<String> write(List<String> keys, String key, List<String> writes, String id, String value) {
		List<String> added = writes.isEmpty() ? new ArrayList<>(keys) : keys;
		added.add(key);
		writes.add(id);
		writes.add(value);
		return added;
	}

	/**
	 * Record a failed attempt: the job is retried after {@code retryDelay}, or dies when
	 * it is {@code null}.
	 * @param queue the queue
	 * @param lease the lease of the failed job
	 * @param error what went wrong, kept with the job
	 * @param retryDelay the delay before the next attempt, or {@code null} to move the
	 * job to dead
	 * @return {@code false} when the lease is no longer held by that token (nothing was
	 * changed)
	 */
	public boolean fail(String queue, Lease lease, String error, @Nullable Duration retryDelay) {
		return fail(queue, lease, error, null, retryDelay);
	}

	/**
	 * Record a failed attempt with the stack trace of its error, kept with the job (and
	 * shown by the inspector) until it fails again or is gone: the job is retried after
	 * {@code retryDelay}, or dies when it is {@code null}.
	 * @param queue the queue
	 * @param lease the lease of the failed job
	 * @param error what went wrong, kept with the job
	 * @param stackTrace the error's stack trace, bounded by the caller, or {@code null}
	 * for none (a trace of an earlier failure is removed)
	 * @param retryDelay the delay before the next attempt, or {@code null} to move the
	 * job to dead
	 * @return {@code false} when the lease is no longer held by that token (nothing was
	 * changed)
	 */
	public boolean fail(String queue, Lease lease, String error, @Nullable String stackTrace,
			@Nullable Duration retryDelay) {
		Long result = this.store.runForLong(this.scripts.fail(), QueueStore.shardOfToken(queue, lease.token()),
				lease.id(), QueueStore.inShard(lease).token(), error,
				(retryDelay != null) ? QueueStore.millis(retryDelay) : "-1", Integer.toString(this.deadLetterMaxSize),
				QueueStore.millis(this.deadLetterTimeToLive), (stackTrace != null) ? stackTrace : "");
		return result != null && result == 1L;
	}

	/**
	 * Give runs about to start the full lease from now (a longer lease is kept). Their
	 * start is not confirmed yet: only a later {@link #extend} of a run whose start
	 * succeeded confirms it, so that a start whose reply was lost (the job never ran)
	 * expires as a stall, without using an attempt.
	 * @param queue the queue
	 * @param starting the leases of the runs about to start
	 * @param lease the lease of a run
	 * @return the tokens of the leases no longer held: those jobs must not start
	 */
	public List<String> start(String queue, Collection<Lease> starting, Duration lease) {
		List<String> lost = new ArrayList<>();
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, starting).entrySet()) {
			List<String> leases = new ArrayList<>(shard.getValue().size() * 3);
			addLeaseArgs(leases, shard.getValue(), "s");
			lost.addAll(extendShard(shard.getKey(), leases, lease, lease));
		}
		return lost;
	}

	/**
	 * Extend leases from now; a longer lease is kept. The runs that started are recorded
	 * as such, so that the lease of a job that never started can expire without using an
	 * attempt (see {@link #migrate(String, int)}).
	 * @param queue the queue
	 * @param started the leases of runs whose {@link #start} succeeded
	 * @param waiting the leases of jobs reserved ahead that wait for a worker
	 * @param lease the new lease of the started runs
	 * @param waitingLease the new lease of the waiting jobs Each
	 * {@value QueueStore#MAX_BATCH_SIZE} leases are extended in one script call, so that
	 * no number of jobs held at once is too many.
	 * @return the tokens of the leases no longer held (a job's id alone cannot tell a
	 * stalled run from a new run of the same job)
	 */
	public List<String> extend(String queue, Collection<Lease> started, Collection<Lease> waiting, Duration lease,
			Duration waitingLease) {
		Map<String, List<Lease>> startedByShard = byShard(queue, started);
		Map<String, List<Lease>> waitingByShard = byShard(queue, waiting);
		Set<String> shards = new LinkedHashSet<>(startedByShard.keySet());
		shards.addAll(waitingByShard.keySet());
		List<String> lost = new ArrayList<>();
		for (String shard : shards) {
			List<String> leases = new ArrayList<>((started.size() + waiting.size()) * 3);
			addLeaseArgs(leases, startedByShard.getOrDefault(shard, List.of()), "1");
			addLeaseArgs(leases, waitingByShard.getOrDefault(shard, List.of()), "0");
			lost.addAll(extendShard(shard, leases, lease, waitingLease));
		}
		return lost;
	}

	/**
	 * Extend leases of one shard.
	 * @return the tokens of the leases no longer held, as the callers know them
	 */
	private List<String> extendShard(String shard, List<String> leases, Duration lease, Duration waitingLease) {
		List<String> lost = new ArrayList<>();
		int batch = QueueStore.MAX_BATCH_SIZE * 3;
		for (int from = 0; from < leases.size(); from += batch) {
			List<String> args = new ArrayList<>(2 + batch);
			args.add(QueueStore.millis(lease));
			args.add(QueueStore.millis(waitingLease));
			args.addAll(leases.subList(from, Math.min(leases.size(), from + batch)));
			for (String token : strings(this.store.runForList(this.scripts.extend(), shard, args))) {
				lost.add(QueueStore.shardToken(shard, token));
			}
		}
		return lost;
	}

	/**
	 * Hand reserved jobs back so that another worker gets them at once; a job that ran
	 * and used its last attempt dies instead. Each {@value QueueStore#MAX_BATCH_SIZE}
	 * leases are handed back in one script call.
	 * @param queue the queue
	 * @param leases the leases to give up
	 * @param undoAttempt whether to give the attempt back (the jobs never started)
	 * @return how many jobs were handed back
	 */
	public long release(String queue, Collection<Lease> leases, boolean undoAttempt) {
		long released = 0;
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, leases).entrySet()) {
			released += releaseShard(shard.getKey(), shard.getValue(), undoAttempt);
		}
		return released;
	}

	private long releaseShard(String shard, List<Lease> all, boolean undoAttempt) {
		long released = 0;
		for (int from = 0; from < all.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<String> args = new ArrayList<>(2 + QueueStore.MAX_BATCH_SIZE * 3);
			args.add(Integer.toString(this.deadLetterMaxSize));
			args.add(QueueStore.millis(this.deadLetterTimeToLive));
			addLeaseArgs(args, all.subList(from, Math.min(all.size(), from + QueueStore.MAX_BATCH_SIZE)),
					undoAttempt ? "1" : "0");
			Long count = this.store.runForLong(this.scripts.release(), shard, args.toArray(new String[0]));
			released += (count != null) ? count : 0;
		}
		return released;
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
		for (String shard : this.store.shards(queue)) {
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
		for (String shard : this.store.shards(queue)) {
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

	/**
	 * Return leases by the shard that gave them, as its scripts know them.
	 */
	private Map<String, List<Lease>> byShard(String queue, Collection<Lease> leases) {
		if (this.store.shards(queue).size() == 1) {
			return Map.of(queue, List.copyOf(leases));
		}
		Map<String, List<Lease>> byShard = new LinkedHashMap<>();
		for (Lease lease : leases) {
			byShard.computeIfAbsent(QueueStore.shardOfToken(queue, lease.token()), (shard) -> new ArrayList<>())
				.add(QueueStore.inShard(lease));
		}
		return byShard;
	}

	private static void addLeaseArgs(List<String> args, Collection<Lease> leases, String flag) {
		for (Lease lease : leases) {
			args.add(lease.id());
			args.add(lease.token());
			args.add(flag);
		}
	}

	private static List<String> leaseArgs(Collection<Lease> leases) {
		List<String> args = new ArrayList<>(leases.size() * 2);
		for (Lease lease : leases) {
			args.add(lease.id());
			args.add(lease.token());
		}
		return args;
	}

	private static List<String> strings(List<?> values) {
		List<String> strings = new ArrayList<>(values.size());
		for (Object value : values) {
			strings.add((String) value);
		}
		return strings;
	}

}
