package io.redq.queue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * The atomic operations on a queue's Redis data, each one Lua script call. Used by the
 * dispatcher and the listener containers; applications normally use {@link JobDispatcher}
 * instead.
 *
 * <p>
 * Every time a script records or compares comes from the Redis clock ({@code TIME}),
 * never from this JVM.
 *
 * @author Redq team
 * @since 0.1.0
 * @see QueueScripts
 */
public class JobQueueOperations {

	/** The most due jobs, and the most expired leases, that one migrator pass moves. */
	public static final int MIGRATION_BATCH_SIZE = 1000;

	/** The default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "redq";

	/** The default number of dead jobs kept per queue. */
	public static final int DEFAULT_DEAD_LETTER_MAX_SIZE = 10_000;

	/** The default time dead jobs are kept. */
	public static final Duration DEFAULT_DEAD_LETTER_TIME_TO_LIVE = Duration.ofDays(7);

	private final StringRedisTemplate redis;

	private final QueueScripts scripts;

	private final String keyPrefix;

	private final Map<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final Duration longestBlockingWait;

	private int deadLetterMaxSize = DEFAULT_DEAD_LETTER_MAX_SIZE;

	private Duration deadLetterTimeToLive = DEFAULT_DEAD_LETTER_TIME_TO_LIVE;

	private int completedMaxSize;

	/**
	 * Create an instance.
	 * @param connectionFactory the Redis connection factory
	 * @param scripts the queue scripts
	 * @param keyPrefix the prefix of every key, e.g. {@code redq}
	 */
	public JobQueueOperations(RedisConnectionFactory connectionFactory, QueueScripts scripts, String keyPrefix) {
		Assert.hasText(keyPrefix, "keyPrefix must not be empty");
		this.redis = new StringRedisTemplate(connectionFactory);
		this.longestBlockingWait = longestBlockingWait(connectionFactory);
		this.scripts = scripts;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Set the number of dead jobs to keep per queue; the oldest beyond it are deleted
	 * when another job dies and by the migrator.
	 * <p>
	 * Default {@value #DEFAULT_DEAD_LETTER_MAX_SIZE}.
	 * @param deadLetterMaxSize the maximum number of dead jobs
	 */
	public void setDeadLetterMaxSize(int deadLetterMaxSize) {
		Assert.isTrue(deadLetterMaxSize >= 0, "deadLetterMaxSize must not be negative");
		this.deadLetterMaxSize = deadLetterMaxSize;
	}

	/**
	 * Set how long dead jobs are kept; older ones are deleted by the migrator and when
	 * another job dies.
	 * <p>
	 * Default 7 days.
	 * @param deadLetterTimeToLive the retention of dead jobs
	 */
	public void setDeadLetterTimeToLive(Duration deadLetterTimeToLive) {
		this.deadLetterTimeToLive = deadLetterTimeToLive;
	}

	/**
	 * Set how many ids of completed jobs to keep per queue, with their completion time,
	 * for inspection (see {@link #completedJobs(String, int)}); older ones are dropped.
	 * <p>
	 * Default 0: a completed job leaves nothing behind.
	 * @param completedMaxSize the number of ids to keep
	 */
	public void setCompletedMaxSize(int completedMaxSize) {
		Assert.isTrue(completedMaxSize >= 0, "completedMaxSize must not be negative");
		this.completedMaxSize = completedMaxSize;
	}

	/**
	 * Return the Redis template the operations run on.
	 * @return the template
	 */
	public StringRedisTemplate getRedisTemplate() {
		return this.redis;
	}

	/**
	 * Return the keys of a queue.
	 * @param queue the queue name
	 * @return its keys
	 */
	public QueueKeys keys(String queue) {
		return this.keys.computeIfAbsent(queue, (name) -> QueueKeys.of(this.keyPrefix, QueueNames.validate(name)));
	}

	/**
	 * Enqueue jobs in one atomic step.
	 * @param queue the queue
	 * @param commands the jobs
	 * @return what happened to each job, in order
	 */
	public List<EnqueueResult> enqueue(String queue, List<EnqueueCommand> commands) {
		List<String> args = new ArrayList<>(1 + commands.size() * 5);
		args.add(Integer.toString(commands.size()));
		for (EnqueueCommand command : commands) {
			args.add(command.id());
			args.add(command.due().absolute() ? "a" : "d");
			args.add(Long.toString(command.due().millis()));
			args.add(command.generatedId() ? "n" : policy(command.policy(), command.uniqueness()));
			args.add(command.body());
		}
		List<?> statuses = run(this.scripts.enqueue(), queue, args);
		List<EnqueueResult> results = new ArrayList<>(statuses.size());
		for (Object status : statuses) {
			results.add(EnqueueResult.values()[((Number) status).intValue()]);
		}
		return results;
	}

	/**
	 * Reserve up to {@code max} ready jobs under a lease.
	 * @param queue the queue
	 * @param max the most jobs to reserve
	 * @param lease how long the lease lasts unless extended
	 * @return the reservation
	 */
	public Reservation reserve(String queue, int max, Duration lease) {
		List<?> result = run(this.scripts.reserve(), queue,
				List.of(Integer.toString(max), millis(lease), millis(this.deadLetterTimeToLive)));
		List<ReservedJob> jobs = new ArrayList<>((result.size() - 2) / 4);
		for (int i = 2; i < result.size(); i += 4) {
			jobs.add(new ReservedJob((String) result.get(i), (String) result.get(i + 1),
					((Number) result.get(i + 2)).intValue(), (String) result.get(i + 3)));
		}
		return new Reservation(number(result, 0), number(result, 1), jobs);
	}

	/**
	 * Acknowledge completed jobs: they are gone from Redis.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @return the ids refused because their lease is no longer held by that token
	 */
	public List<String> ack(String queue, Collection<Lease> leases) {
		List<String> args = new ArrayList<>(1 + leases.size() * 2);
		args.add(Integer.toString(this.completedMaxSize));
		args.addAll(leaseArgs(leases));
		return strings(run(this.scripts.ack(), queue, args));
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
		Long result = this.redis.execute(this.scripts.fail(), keys(queue).all(), lease.id(), lease.token(), error,
				(retryDelay != null) ? millis(retryDelay) : "-1", Integer.toString(this.deadLetterMaxSize),
				millis(this.deadLetterTimeToLive));
		return result != null && result == 1L;
	}

	/**
	 * Extend leases to {@code lease} from now; a longer lease is kept.
	 * @param queue the queue
	 * @param leases the leases to extend
	 * @param lease the new lease duration
	 * @return the ids whose lease is no longer held by that token
	 */
	public List<String> extend(String queue, Collection<Lease> leases, Duration lease) {
		List<String> args = new ArrayList<>(1 + leases.size() * 2);
		args.add(millis(lease));
		args.addAll(leaseArgs(leases));
		return strings(run(this.scripts.extend(), queue, args));
	}

	/**
	 * Hand reserved jobs back so that another worker gets them at once.
	 * @param queue the queue
	 * @param leases the leases to give up
	 * @param undoAttempt whether to give the attempt back (the jobs never started)
	 * @return how many jobs were released
	 */
	public long release(String queue, Collection<Lease> leases, boolean undoAttempt) {
		List<String> args = new ArrayList<>(leases.size() * 3);
		for (Lease lease : leases) {
			args.add(lease.id());
			args.add(lease.token());
			args.add(undoAttempt ? "1" : "0");
		}
		Long released = this.redis.execute(this.scripts.release(), keys(queue).all(), args.toArray());
		return (released != null) ? released : 0;
	}

	/**
	 * Move due delayed jobs to ready, recover expired leases and delete dead jobs beyond
	 * the age or size limit, at most {@value #MIGRATION_BATCH_SIZE} of each.
	 * @param queue the queue
	 * @return what the pass did
	 */
	public Migration migrate(String queue) {
		List<?> result = run(this.scripts.migrate(), queue, List.of(Integer.toString(MIGRATION_BATCH_SIZE),
				Integer.toString(this.deadLetterMaxSize), millis(this.deadLetterTimeToLive)));
		return new Migration(number(result, 0), (int) number(result, 1), (int) number(result, 2), number(result, 3),
				(int) number(result, 4));
	}

	/**
	 * Move a pending job to a new due time in one step; a job that became ready but has
	 * not started counts as pending, and keeps its place in line when the new due time
	 * has come.
	 * @param queue the queue
	 * @param id the job id
	 * @param due the new due time
	 * @return whether the job was pending
	 */
	public boolean reschedule(String queue, String id, EnqueueCommand.Due due) {
		return moveTo(queue, id, due) != 0;
	}

	/**
	 * Make a delayed job or timer ready now, in one step.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether the job was delayed; a ready job keeps its place in line
	 */
	public boolean trigger(String queue, String id) {
		return moveTo(queue, id, EnqueueCommand.Due.NOW) == 1;
	}

	private long moveTo(String queue, String id, EnqueueCommand.Due due) {
		Long result = this.redis.execute(this.scripts.reschedule(), keys(queue).all(), id, due.absolute() ? "a" : "d",
				Long.toString(due.millis()));
		return (result != null) ? result : 0;
	}

	/**
	 * Tell where a job is.
	 * @param queue the queue
	 * @param id the job id
	 * @return the job's status
	 */
	public JobStatus status(String queue, String id) {
		List<?> result = run(this.scripts.status(), queue, List.of(id));
		long at = number(result, 2);
		return new JobStatus(JobStatus.State.valueOf(((String) result.get(1)).toUpperCase(Locale.ROOT)),
				(at >= 0) ? Instant.ofEpochMilli(at) : null, Instant.ofEpochMilli(number(result, 0)));
	}

	/**
	 * Cancel a pending (ready or delayed) job, or else the dispatch queued behind the
	 * running job with that id.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether a pending job or queued dispatch was removed
	 */
	public boolean cancel(String queue, String id) {
		Long removed = this.redis.execute(this.scripts.cancel(), keys(queue).all(), id);
		return removed != null && removed == 1L;
	}

	/**
	 * Count the jobs of a queue in each state.
	 * @param queue the queue
	 * @return the counts
	 */
	public QueueStats stats(String queue) {
		return snapshot(queue).stats();
	}

	/**
	 * Count the jobs of a queue in each state and tell how long its oldest ready job has
	 * waited and whether the queue is paused, in one read.
	 * @param queue the queue
	 * @return the snapshot
	 */
	public QueueSnapshot snapshot(String queue) {
		List<?> values = run(this.scripts.stats(), queue, List.of());
		long oldest = number(values, 5);
		return new QueueSnapshot(
				new QueueStats(number(values, 0), number(values, 1), number(values, 2), number(values, 3)),
				(oldest >= 0) ? Duration.ofMillis(Math.max(0, number(values, 4) - oldest)) : Duration.ZERO,
				number(values, 6) == 1);
	}

	/**
	 * Let a reserved job pass its gates, or defer it: back to delayed with its attempt
	 * given back. A job deferred by a taken key or a full running set waits in that
	 * gate's line, and the run that leaves the gate wakes the first in line. A job
	 * deferred by the rate limit is given the next place the window has room for, behind
	 * the jobs deferred before it.
	 * @param queue the queue
	 * @param lease the job's lease
	 * @param gates the job's gates
	 * @param leaseTime how long the gates are held unless renewed
	 * @param recheckDelay how long a job waits when its key is taken or a running limit
	 * is reached, unless it is woken earlier
	 * @return 0 when admitted, -1 when the lease is no longer held by that token, else
	 * the wait in ms
	 */
	public long admit(String queue, Lease lease, Gates gates, Duration leaseTime, Duration recheckDelay) {
		RateLimit rate = gates.rateLimit();
		Long result = this.redis.execute(this.scripts.admit(), gateKeys(queue, gates), lease.id(), lease.token(),
				millis(leaseTime), (gates.exclusiveKey() != null) ? "1" : "0", Integer.toString(gates.jobMaxRunning()),
				Integer.toString(gates.queueMaxRunning()), (rate != null) ? Integer.toString(rate.permits()) : "0",
				(rate != null) ? millis(rate.window()) : "0", millis(recheckDelay));
		return (result != null) ? result : -1;
	}

	/**
	 * Renew the gates a running job holds.
	 * @param queue the queue
	 * @param lease the lease of the run that passed the gates
	 * @param gates the job's gates
	 * @param leaseTime the new lease of the gates
	 */
	public void holdGates(String queue, Lease lease, Gates gates, Duration leaseTime) {
		this.redis.execute(this.scripts.hold(), gateKeys(queue, gates), lease.id(), lease.token(), millis(leaseTime),
				"1");
	}

	/**
	 * Leave the gates a finished job held, so that the next job may pass, and wake the
	 * first job waiting for each gate it freed.
	 * @param queue the queue
	 * @param lease the lease of the run that passed the gates
	 * @param gates the job's gates
	 */
	public void leaveGates(String queue, Lease lease, Gates gates) {
		this.redis.execute(this.scripts.hold(), gateKeys(queue, gates), lease.id(), lease.token(), "0", "0");
	}

	private List<String> gateKeys(String queue, Gates gates) {
		QueueKeys keys = keys(queue);
		List<String> all = new ArrayList<>(keys.all());
		all.addAll(keys.gates(gates));
		return all;
	}

	/**
	 * Pause a queue in every application instance: no job is reserved until it is
	 * resumed; running jobs finish.
	 * @param queue the queue
	 */
	public void pause(String queue) {
		this.redis.opsForValue().set(keys(queue).paused(), "1");
	}

	/**
	 * Resume a paused queue.
	 * @param queue the queue
	 */
	public void resume(String queue) {
		QueueKeys keys = keys(queue);
		this.redis.delete(keys.paused());
		this.redis.opsForZSet().add(keys.wake(), "w", 0);
	}

	/**
	 * Return whether a queue is paused.
	 * @param queue the queue
	 * @return whether it is paused
	 */
	public boolean isPaused(String queue) {
		return Boolean.TRUE.equals(this.redis.hasKey(keys(queue).paused()));
	}

	/**
	 * Return the latest completed jobs of a queue, newest first; none unless
	 * {@link #setCompletedMaxSize(int) kept}.
	 * @param queue the queue
	 * @param count the most to return, at least 1
	 * @return the completed jobs
	 */
	public List<CompletedJob> completedJobs(String queue, int count) {
		// Redis reads the range 0..-1 as the whole set
		Assert.isTrue(count > 0, "count must be positive");
		Set<ZSetOperations.TypedTuple<String>> latest = this.redis.opsForZSet()
			.reverseRangeWithScores(keys(queue).completed(), 0, count - 1);
		List<CompletedJob> completed = new ArrayList<>();
		if (latest != null) {
			for (ZSetOperations.TypedTuple<String> entry : latest) {
				completed.add(new CompletedJob(entry.getValue(), Instant.ofEpochMilli(entry.getScore().longValue())));
			}
		}
		return completed;
	}

	/**
	 * Page through a queue's dead jobs, newest first.
	 * @param queue the queue
	 * @param offset how many of the newest to skip, at least 0
	 * @param count the most to return, at least 1
	 * @return the dead jobs
	 */
	public List<DeadJob> deadJobs(String queue, int offset, int count) {
		// Redis reads a range that ends before it starts as counted from the end
		Assert.isTrue(offset >= 0 && count > 0, "offset must not be negative and count must be positive");
		return dead(queue, List.of(Integer.toString(offset), Integer.toString(count)));
	}

	/**
	 * Return one dead job.
	 * @param queue the queue
	 * @param id the job id
	 * @return the dead job, or {@code null} when no job with that id is dead
	 */
	public @Nullable DeadJob deadJob(String queue, String id) {
		List<DeadJob> found = dead(queue, List.of("ids", id));
		return found.isEmpty() ? null : found.get(0);
	}

	private List<DeadJob> dead(String queue, List<String> args) {
		List<?> values = run(this.scripts.dead(), queue, args);
		List<DeadJob> dead = new ArrayList<>(values.size() / 5);
		for (int i = 0; i < values.size(); i += 5) {
			dead.add(new DeadJob((String) values.get(i),
					Instant.ofEpochMilli((long) Double.parseDouble((String) values.get(i + 1))),
					(String) values.get(i + 2), (String) values.get(i + 3),
					Integer.parseInt((String) values.get(i + 4))));
		}
		return dead;
	}

	/**
	 * Retry dead jobs with fresh attempts: they become ready at once.
	 * @param queue the queue
	 * @param ids the ids, or none for every dead job
	 * @return how many jobs were retried
	 */
	public long retryDead(String queue, Collection<String> ids) {
		return revive(queue, "retry", ids);
	}

	/**
	 * Delete dead jobs.
	 * @param queue the queue
	 * @param ids the ids, or none for every dead job
	 * @return how many jobs were deleted
	 */
	public long deleteDead(String queue, Collection<String> ids) {
		return revive(queue, "delete", ids);
	}

	private long revive(String queue, String action, Collection<String> ids) {
		long total = 0;
		while (true) {
			List<String> args = new ArrayList<>(ids.size() + 1);
			args.add(action);
			args.addAll(ids);
			Long done = this.redis.execute(this.scripts.revive(), keys(queue).all(), args.toArray());
			total += (done != null) ? done : 0;
			// without ids, each call handles the oldest 1,000
			if (!ids.isEmpty() || done == null || done == 0) {
				return total;
			}
		}
	}

	/**
	 * Delete every job of a queue: ready, delayed, running (their results will be
	 * refused) and dead. A paused queue stays paused.
	 * @param queue the queue
	 */
	public void purge(String queue) {
		QueueKeys keys = keys(queue);
		List<String> purged = new ArrayList<>(keys.all());
		// the lease token counter never goes back, or the stale token of a purged running
		// job could match the lease of a new job with the same id
		purged.removeAll(List.of(keys.paused(), keys.sequence()));
		this.redis.delete(purged);
	}

	/**
	 * Block until a listener is woken for the queue, or the timeout passes. Runs on a
	 * connection of its own, since a blocking command holds its connection. With Lettuce,
	 * the wait ends a second (at most half the time) before the command timeout
	 * ({@code spring.data.redis.timeout}), so that a long timeout does not make every
	 * idle wait fail.
	 * @param connection a connection used for nothing else meanwhile
	 * @param queue the queue
	 * @param timeout how long to wait at most
	 * @return whether a wake-up arrived
	 */
	public boolean awaitWakeUp(RedisConnection connection, String queue, Duration timeout) {
		byte[] key = keys(queue).wake().getBytes(StandardCharsets.UTF_8);
		long millis = Math.max(1, Math.min(timeout.toMillis(), this.longestBlockingWait.toMillis()));
		return connection.zSetCommands().bZPopMin(key, millis, TimeUnit.MILLISECONDS) != null;
	}

	private static Duration longestBlockingWait(RedisConnectionFactory connectionFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return Duration.ofMillis(Long.MAX_VALUE);
		}
		Duration commandTimeout = lettuce.getClientConfiguration().getCommandTimeout();
		Duration half = commandTimeout.dividedBy(2);
		return commandTimeout.minus((half.compareTo(Duration.ofSeconds(1)) < 0) ? half : Duration.ofSeconds(1));
	}

	@SuppressWarnings("rawtypes")
	private List<?> run(RedisScript<List> script, String queue, List<String> args) {
		List<?> result = this.redis.execute(script, keys(queue).all(), args.toArray());
		return (result != null) ? result : List.of();
	}

	private static String policy(DuplicatePolicy policy, Uniqueness uniqueness) {
		String pending = switch (policy) {
			case KEEP -> "k";
			case REPLACE -> "r";
			case REPLACE_PAYLOAD -> "p";
		};
		return (uniqueness == Uniqueness.UNTIL_STARTED) ? pending + "q" : pending;
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

	private static long number(List<?> values, int index) {
		return ((Number) values.get(index)).longValue();
	}

	private static String millis(Duration duration) {
		return Long.toString(duration.toMillis());
	}

}
