package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.QueueNames;
import io.redq.queue.listener.ContainerProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for Redq.
 *
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("redq")
public class JobQueueProperties {

	/**
	 * Prefix of every Redis key Redq writes; keys are "<prefix>:{<queue>}:<part>". Must
	 * not contain braces, which would split a queue's keys across Redis Cluster slots.
	 */
	private String keyPrefix = "redq";

	/**
	 * Whether dispatching and processing jobs are observed with Micrometer's Observation
	 * API, and the trace context travels in each job's headers.
	 */
	private boolean observationEnabled;

	private final Listener listener = Listener.defaults();

	/**
	 * Listener settings of single queues, by queue name; each overrides the matching
	 * "redq.listener.*" value.
	 */
	private final Map<String, Listener> queues = new LinkedHashMap<>();

	private final Job job = new Job();

	/**
	 * Jobs that this application dispatches but another application handles, by job name.
	 */
	private final Map<String, RemoteJob> remoteJobs = new LinkedHashMap<>();

	private final Map<String, RemoteJob> jobs = new LinkedHashMap<>();

	private final Dispatcher dispatcher = new Dispatcher();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Completed completed = new Completed();

	private final Batches batches = new Batches();

	private final Results results = new Results();

	private final Progress progress = new Progress();

	private final Health health = new Health();

	private final Inspection inspection = new Inspection();

	private final Recurring recurring = new Recurring();

	private final Lock lock = new Lock();

	private final Redis redis = new Redis();

	private final Durability durability = new Durability();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = QueueNames.validateKeyPrefix(keyPrefix);
	}

	public boolean isObservationEnabled() {
		return this.observationEnabled;
	}

	public void setObservationEnabled(boolean observationEnabled) {
		this.observationEnabled = observationEnabled;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Map<String, Listener> getQueues() {
		return this.queues;
	}

	public Job getJob() {
		return this.job;
	}

	public Map<String, RemoteJob> getRemoteJobs() {
		return this.remoteJobs;
	}

	/**
	 * Jobs that this application dispatches but another application handles, by job name.
	 * @return the jobs
	 * @deprecated since 0.1.0 for removal in 0.2.0 in favor of {@link #getRemoteJobs()},
	 * whose name cannot be mistaken for "redq.job"
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "redq.remote-jobs", since = "0.1.0",
			reason = "Renamed so that it cannot be mistaken for redq.job, the defaults of every job")
	public Map<String, RemoteJob> getJobs() {
		return this.jobs;
	}

	public Dispatcher getDispatcher() {
		return this.dispatcher;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Completed getCompleted() {
		return this.completed;
	}

	public Batches getBatches() {
		return this.batches;
	}

	public Results getResults() {
		return this.results;
	}

	public Progress getProgress() {
		return this.progress;
	}

	public Health getHealth() {
		return this.health;
	}

	public Inspection getInspection() {
		return this.inspection;
	}

	public Recurring getRecurring() {
		return this.recurring;
	}

	public Lock getLock() {
		return this.lock;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Durability getDurability() {
		return this.durability;
	}

	/**
	 * Settings of the listener containers, one per queue with handlers: under
	 * "redq.listener" for every queue, under {@code redq.queues.<queue>} for one queue,
	 * where a value left out is the "redq.listener" one. Jobs run on virtual threads when
	 * Spring Boot's "spring.threads.virtual.enabled" is set (Java 21+).
	 */
	public static class Listener {

		/**
		 * Number of jobs a queue's container runs at once, at least 1. No upper bound:
		 * the container renews, acknowledges and hands back its jobs in Redis calls of at
		 * most 1000 jobs each.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Most jobs reserved in one Redis round trip, from 1 to 1000.
		 */
		private @Nullable Integer batchSize;

		/**
		 * Most jobs a queue's container reserves ahead of free workers, so that a worker
		 * finds its next job without a round trip; only as many as the workers would
		 * start within about 100 ms at the recent job duration. 0 turns it off.
		 */
		private @Nullable Integer prefetch;

		/**
		 * Longest wait for a wake-up before an idle container looks for jobs again. With
		 * Lettuce, the wait also ends a second before the Redis command timeout.
		 */
		private @Nullable Duration pollTimeout;

		/**
		 * How long a running job stays with its worker without a renewal, at least 30ms;
		 * renewed every third of it while the job runs. A job whose worker died runs
		 * again after this time. A job is reserved with this lease and starts on it; one
		 * that waits for a worker across a renewal holds a waiting lease of this, at most
		 * 5 seconds, and gets this full lease again when it starts.
		 */
		private @Nullable Duration leaseTime;

		/**
		 * How many times in its life a job's lease may expire before a renewal confirmed
		 * that its run started (a lost reply, a job reserved ahead by an instance that
		 * stalled or died, a worker that died within its first renewal interval) without
		 * using an attempt; each later such expiry uses one, so that a job that kills its
		 * worker still ends dead. 0 uses an attempt for every expired lease.
		 */
		private @Nullable Integer maxStalls;

		/**
		 * How long running jobs get to finish on shutdown before they are interrupted and
		 * handed back.
		 */
		private @Nullable Duration shutdownTimeout;

		/**
		 * Whether containers start with the application.
		 */
		private @Nullable Boolean autoStartup;

		/**
		 * How many jobs of a queue run at once across all application instances; further
		 * jobs wait. 0 for no limit.
		 */
		private @Nullable Integer maxRunning;

		/**
		 * How many jobs of one group run at once across all application instances;
		 * further jobs of that group wait while other groups' jobs run. 0 for no limit.
		 */
		private @Nullable Integer groupMaxRunning;

		/**
		 * Number of shards of a queue, at least 1: each a hash tag of its own, placed on
		 * different Redis Cluster masters when the queue is first used, so that one queue
		 * spreads its load over several masters. Give every application that dispatches
		 * to or handles the queue the same value.
		 */
		private @Nullable Integer shards;

		/**
		 * Create settings that leave every value to "redq.listener".
		 */
		public Listener() {
		}

		/**
		 * The settings of "redq.listener": the listener container's defaults.
		 */
		static Listener defaults() {
			ContainerProperties defaults = new ContainerProperties();
			Listener listener = new Listener();
			listener.concurrency = defaults.getConcurrency();
			listener.batchSize = defaults.getBatchSize();
			listener.prefetch = defaults.getPrefetch();
			listener.pollTimeout = defaults.getPollTimeout();
			listener.leaseTime = defaults.getLeaseTime();
			listener.maxStalls = defaults.getMaxStalls();
			listener.shutdownTimeout = defaults.getShutdownTimeout();
			listener.autoStartup = defaults.isAutoStartup();
			listener.maxRunning = defaults.getMaxRunning();
			listener.groupMaxRunning = defaults.getGroupMaxRunning();
			listener.shards = 1;
			return listener;
		}

		/**
		 * Apply the values that are set to a container's settings.
		 * @param container the settings of a container
		 */
		void applyTo(ContainerProperties container) {
			PropertyMapper map = PropertyMapper.get();
			map.from(this.concurrency).to(container::setConcurrency);
			map.from(this.batchSize).to(container::setBatchSize);
			map.from(this.prefetch).to(container::setPrefetch);
			map.from(this.pollTimeout).to(container::setPollTimeout);
			map.from(this.leaseTime).to(container::setLeaseTime);
			map.from(this.maxStalls).to(container::setMaxStalls);
			map.from(this.shutdownTimeout).to(container::setShutdownTimeout);
			map.from(this.autoStartup).to(container::setAutoStartup);
			map.from(this.maxRunning).to(container::setMaxRunning);
			map.from(this.groupMaxRunning).to(container::setGroupMaxRunning);
		}

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public @Nullable Integer getShards() {
			return this.shards;
		}

		public void setShards(@Nullable Integer shards) {
			if (shards != null && shards < 1) {
				throw new IllegalArgumentException("shards must be at least 1, not " + shards);
			}
			this.shards = shards;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			if (concurrency != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setConcurrency(concurrency);
			}
			this.concurrency = concurrency;
		}

		public @Nullable Integer getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(@Nullable Integer batchSize) {
			if (batchSize != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setBatchSize(batchSize);
			}
			this.batchSize = batchSize;
		}

		public @Nullable Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Integer prefetch) {
			if (prefetch != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setPrefetch(prefetch);
			}
			this.prefetch = prefetch;
		}

		public @Nullable Duration getPollTimeout() {
			return this.pollTimeout;
		}

		public void setPollTimeout(@Nullable Duration pollTimeout) {
			if (pollTimeout != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setPollTimeout(pollTimeout);
			}
			this.pollTimeout = pollTimeout;
		}

		public @Nullable Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(@Nullable Duration leaseTime) {
			if (leaseTime != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setLeaseTime(leaseTime);
			}
			this.leaseTime = leaseTime;
		}

		public @Nullable Integer getMaxStalls() {
			return this.maxStalls;
		}

		public void setMaxStalls(@Nullable Integer maxStalls) {
			if (maxStalls != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setMaxStalls(maxStalls);
			}
			this.maxStalls = maxStalls;
		}

		public @Nullable Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(@Nullable Duration shutdownTimeout) {
			if (shutdownTimeout != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setShutdownTimeout(shutdownTimeout);
			}
			this.shutdownTimeout = shutdownTimeout;
		}

		public @Nullable Boolean getAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(@Nullable Boolean autoStartup) {
			if (autoStartup != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setAutoStartup(autoStartup);
			}
			this.autoStartup = autoStartup;
		}

		public @Nullable Integer getMaxRunning() {
			return this.maxRunning;
		}

		public void setMaxRunning(@Nullable Integer maxRunning) {
			if (maxRunning != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setMaxRunning(maxRunning);
			}
			this.maxRunning = maxRunning;
		}

		public @Nullable Integer getGroupMaxRunning() {
			return this.groupMaxRunning;
		}

		public void setGroupMaxRunning(@Nullable Integer groupMaxRunning) {
			if (groupMaxRunning != null) {
				// the container's rule, so that a bad value fails binding and names the
				// property
				new ContainerProperties().setGroupMaxRunning(groupMaxRunning);
			}
			this.groupMaxRunning = groupMaxRunning;
		}

	}

	/**
	 * Defaults for jobs whose @QueuedJob declaration leaves a value out.
	 */
	public static class Job {

		/**
		 * Queue of jobs that name none.
		 */
		private String queue = "default";

		/**
		 * How many times a job is tried before it dies.
		 */
		private int maxAttempts = 3;

		/**
		 * How long one attempt may run before it is interrupted and failed; 0 for no
		 * limit.
		 */
		private Duration timeout = Duration.ZERO;

		private final Backoff backoff = new Backoff();

		public String getQueue() {
			return this.queue;
		}

		public void setQueue(String queue) {
			// checked when set, so that a bad value fails binding and names the property
			this.queue = QueueNames.validate(queue);
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			Assert.isTrue(maxAttempts >= 1, () -> "maxAttempts must be at least 1; got " + maxAttempts);
			this.maxAttempts = maxAttempts;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			Assert.isTrue(!timeout.isNegative(), () -> "timeout must not be negative (0 for no limit); got " + timeout);
			this.timeout = timeout;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

	}

	/**
	 * Wait between attempts: delay * multiplier^(attempt - 1), at most max-delay, plus up
	 * to jitter.
	 */
	public static class Backoff {

		/**
		 * Wait after the first failed attempt.
		 */
		private Duration delay = Duration.ofSeconds(1);

		/**
		 * Factor applied to the wait for each further attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest wait between attempts, before jitter.
		 */
		private Duration maxDelay = Duration.ofMinutes(10);

		/**
		 * Most random time added to each wait, to spread out retries that failed
		 * together.
		 */
		private Duration jitter = Duration.ZERO;

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			// the library's rule, so that a bad value fails binding and names the
			// property
			new JobBackoff(delay, this.multiplier, this.maxDelay, this.jitter);
			this.delay = delay;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			// the library's rule, so that a bad value fails binding and names the
			// property
			new JobBackoff(this.delay, multiplier, this.maxDelay, this.jitter);
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			// the library's rule, so that a bad value fails binding and names the
			// property
			new JobBackoff(this.delay, this.multiplier, maxDelay, this.jitter);
			this.maxDelay = maxDelay;
		}

		public Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(Duration jitter) {
			// the library's rule, so that a bad value fails binding and names the
			// property
			new JobBackoff(this.delay, this.multiplier, this.maxDelay, jitter);
			this.jitter = jitter;
		}

	}

	/**
	 * A job this application dispatches but does not handle.
	 */
	public static class RemoteJob {

		/**
		 * Queue the job goes to. Defaults to "redq.job.queue".
		 */
		private @Nullable String queue;

		/**
		 * How many times the job is tried before it dies. Defaults to
		 * "redq.job.max-attempts".
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * How long one attempt may run; 0 for no limit. Defaults to "redq.job.timeout".
		 */
		private @Nullable Duration timeout;

		public @Nullable String getQueue() {
			return this.queue;
		}

		public void setQueue(@Nullable String queue) {
			this.queue = queue;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of the job dispatcher.
	 */
	public static class Dispatcher {

		/**
		 * Largest job accepted, as JSON with its metadata; larger dispatches are
		 * rejected.
		 */
		private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

		/**
		 * How long Redis remembers the reply of a call that changes a queue (each
		 * dispatch call of up to 1,000 jobs, cancel, reschedule, retry or delete of dead
		 * jobs, purge), so that a call Lettuce re-sends after a reconnect changes
		 * nothing. Must be longer than the Redis command timeout
		 * (spring.data.redis.timeout, 60s by default), after which Lettuce no longer
		 * re-sends. Redis keeps one reply per call in flight at once, not one per call.
		 */
		private Duration resendWindow = Duration.ofMinutes(2);

		/**
		 * Longest wait for Redis to take a dispatch (each caller's job; for dispatchAll,
		 * each call of up to 1,000 jobs), besides the wait for replicas, so that a
		 * dispatch fails fast while Redis is down instead of blocking for the Redis
		 * command timeout. A dispatch that times out throws a DispatchTimeoutException
		 * (dispatchAsync completes exceptionally with it). A job that still waited behind
		 * its queue's call in flight is not sent; a call that was sent is not cancelled
		 * and may still enqueue its jobs if Redis takes it before the Redis command
		 * timeout. The dispatcher's cancel, cancelTimer and reschedule wait as long at
		 * most, then throw a QueryTimeoutException; so do JobQueueOperations' status,
		 * progress, trigger, reschedule and cancel of a job, and its reads of a queue's
		 * counts (the actuator endpoint's trigger and cancel among them), naming the
		 * queue and the shard that did not answer.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		/**
		 * Whether a job dispatched inside a Spring-managed transaction follows it: held
		 * and sent after the commit (or written to the outbox of the queue-outbox
		 * module), dropped on rollback. When false, jobs are sent at once.
		 */
		private boolean transactionAware = true;

		private final Coalescing coalescing = new Coalescing();

		public DataSize getMaxPayloadSize() {
			return this.maxPayloadSize;
		}

		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			Assert.isTrue(maxPayloadSize.toBytes() > 0, () -> "maxPayloadSize must be positive; got " + maxPayloadSize);
			this.maxPayloadSize = maxPayloadSize;
		}

		public Duration getResendWindow() {
			return this.resendWindow;
		}

		public void setResendWindow(Duration resendWindow) {
			// its lower bound, the Redis command timeout, is checked with the dispatcher
			Assert.isTrue(resendWindow.toMillis() > 0, () -> "resendWindow must be at least 1 ms; got " + resendWindow);
			this.resendWindow = resendWindow;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public boolean isTransactionAware() {
			return this.transactionAware;
		}

		public void setTransactionAware(boolean transactionAware) {
			this.transactionAware = transactionAware;
		}

		public Coalescing getCoalescing() {
			return this.coalescing;
		}

	}

	/**
	 * How concurrent dispatches share script calls: while a call for a queue is in
	 * flight, the dispatches for that queue that arrive meanwhile are sent together in
	 * the next call, once its reply came. A lone dispatch is sent at once; each job keeps
	 * its own result, failure and timeout.
	 */
	public static class Coalescing {

		/**
		 * Whether concurrent synchronous dispatches of a queue share script calls, as
		 * asynchronous ones always do. When false, each synchronous dispatch is a call of
		 * its own.
		 */
		private boolean enabled = true;

		/**
		 * Most jobs in one shared call, from 1 to 1,000 (the most of one script call, as
		 * for dispatchAll).
		 */
		private int maxJobs = 1000;

		/**
		 * Most job JSON in one shared call, counted in characters (bytes for ASCII); a
		 * larger job goes alone.
		 */
		private DataSize maxSize = DataSize.ofMegabytes(1);

		/**
		 * Most script calls of a queue's synchronous dispatches in flight at once; a
		 * queue with an asynchronous dispatch waiting or in flight has one at most.
		 */
		private int maxInFlight = 2;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxJobs() {
			return this.maxJobs;
		}

		public void setMaxJobs(int maxJobs) {
			this.maxJobs = maxJobs;
		}

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

		public int getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(int maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

	}

	/**
	 * Retention of dead jobs, per queue; the oldest beyond either limit are deleted when
	 * another job dies and by the migrator.
	 */
	public static class DeadLetter {

		/**
		 * Most dead jobs kept per queue.
		 */
		private int maxSize = 10000;

		/**
		 * How long dead jobs are kept.
		 */
		private Duration timeToLive = Duration.ofDays(7);

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

	/**
	 * Retention of completed jobs.
	 */
	public static class Completed {

		/**
		 * How many ids of completed jobs each queue keeps, with their completion time,
		 * for inspection. 0 keeps none: a completed job leaves nothing behind.
		 */
		private int maxSize;

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

	}

	/**
	 * Settings of batches.
	 */
	public static class Batches {

		/**
		 * How long a batch's state (counts, dead members) or a chain's (its steps) is
		 * kept after it ended, for reads.
		 */
		private Duration linger = Duration.ofDays(1);

		public Duration getLinger() {
			return this.linger;
		}

		public void setLinger(Duration linger) {
			this.linger = linger;
		}

	}

	/**
	 * Retention of the values that jobs return.
	 */
	public static class Results {

		/**
		 * The largest result kept, as JSON. A job whose handler returns a larger one dies
		 * at once with an error that says so, rather than keep a truncated value.
		 */
		private DataSize maxSize = DataSize.ofKilobytes(64);

		/**
		 * How long a completed job's result is kept for callers that wait for it; one
		 * that asks later learns that the result is unknown or expired.
		 */
		private Duration timeToLive = Duration.ofHours(1);

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

	/**
	 * Settings of the progress, cursors and steps that running jobs keep in Redis.
	 */
	public static class Progress {

		/**
		 * The shortest time between two writes of a running job's progress and cursor: a
		 * handler may report as often as it likes, only its latest values are written. A
		 * worker killed outright repeats at most the iteration steps of one interval.
		 */
		private Duration interval = Duration.ofSeconds(1);

		/**
		 * How long a job's progress, cursor and finished steps are kept after their last
		 * write. They go when the job completes; keep them longer than a job waits
		 * between two attempts, which resume at the cursor kept.
		 */
		private Duration timeToLive = Duration.ofDays(7);

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

	/**
	 * Settings of the distributed locks.
	 */
	public static class Lock {

		/**
		 * How long a lock is held without a renewal, measured by Redis. With the
		 * watchdog, how long others wait for a lock whose holder died without releasing
		 * it.
		 */
		private Duration leaseTime = Duration.ofSeconds(30);

		/**
		 * Whether a watchdog renews the lease of held locks every third of it until they
		 * are released, so that a lock lasts as long as its holder runs. Without it, a
		 * lock ends with its lease.
		 */
		private boolean watchdog = true;

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = leaseTime;
		}

		public boolean isWatchdog() {
			return this.watchdog;
		}

		public void setWatchdog(boolean watchdog) {
			this.watchdog = watchdog;
		}

	}

	/**
	 * Settings of the application's Redis client.
	 */
	public static class Redis {

		/**
		 * Longest wait between two attempts of Lettuce to reconnect to Redis, so that
		 * workers resume within about this time once Redis answers again, however long it
		 * was away. Applies to the application's Lettuce client as a whole.
		 */
		private Duration reconnectMaxDelay = Duration.ofSeconds(1);

		/**
		 * Whether, on a Redis Cluster with Lettuce, Redq sets a command timeout of 5s and
		 * a topology refresh every 2s and on every adaptive trigger, so that a queue
		 * resumes within seconds after its master failed over. Each applies only when
		 * spring.data.redis.timeout or spring.data.redis.lettuce.cluster.refresh.period
		 * is not set.
		 */
		private boolean clusterFailoverDefaults = true;

		public Duration getReconnectMaxDelay() {
			return this.reconnectMaxDelay;
		}

		public void setReconnectMaxDelay(Duration reconnectMaxDelay) {
			this.reconnectMaxDelay = reconnectMaxDelay;
		}

		public boolean isClusterFailoverDefaults() {
			return this.clusterFailoverDefaults;
		}

		public void setClusterFailoverDefaults(boolean clusterFailoverDefaults) {
			this.clusterFailoverDefaults = clusterFailoverDefaults;
		}

	}

	/**
	 * How many Redis replicas must have a dispatch, an acknowledgement or a lock before
	 * it counts as done (Redis WAIT; on a Redis Cluster, on the master that took it).
	 */
	public static class Durability {

		/**
		 * Replicas that must confirm each dispatch, acknowledgement and lock acquisition.
		 * A dispatch that fewer confirmed within the timeout throws (the job is on the
		 * master), an acknowledgement logs a warning, and a lock is released again and
		 * its acquisition throws. 0 waits for none.
		 */
		private int replicas;

		/**
		 * Longest wait for the replicas to confirm a write.
		 */
		private Duration replicaTimeout = Duration.ofSeconds(1);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getReplicaTimeout() {
			return this.replicaTimeout;
		}

		public void setReplicaTimeout(Duration replicaTimeout) {
			this.replicaTimeout = replicaTimeout;
		}

	}

	/**
	 * Thresholds of the "redq" health component.
	 */
	public static class Health {

		/**
		 * Most ready and delayed jobs a queue may hold before its health turns to the
		 * threshold status. Unset for no limit.
		 */
		private @Nullable Long maxBacklog;

		/**
		 * Longest a ready job may wait before its queue's health turns to the threshold
		 * status. Unset for no limit.
		 */
		private @Nullable Duration maxOldestAge;

		/**
		 * Health status of a queue that exceeds a threshold, e.g. DOWN or OUT_OF_SERVICE.
		 */
		private String thresholdStatus = "OUT_OF_SERVICE";

		public @Nullable Long getMaxBacklog() {
			return this.maxBacklog;
		}

		public void setMaxBacklog(@Nullable Long maxBacklog) {
			this.maxBacklog = maxBacklog;
		}

		public @Nullable Duration getMaxOldestAge() {
			return this.maxOldestAge;
		}

		public void setMaxOldestAge(@Nullable Duration maxOldestAge) {
			this.maxOldestAge = maxOldestAge;
		}

		public String getThresholdStatus() {
			return this.thresholdStatus;
		}

		public void setThresholdStatus(String thresholdStatus) {
			this.thresholdStatus = thresholdStatus;
		}

	}

	/**
	 * Settings of the reads that show the queues: the dashboard, the "redq" actuator
	 * endpoint and the "redq" health indicator.
	 */
	public static class Inspection {

		/**
		 * Longest wait for Redis to answer the reads of one request (a page of the
		 * dashboard, an operation of the endpoint, a health check) as a whole, so that it
		 * answers that Redis is unavailable (503, or the health status DOWN) while Redis
		 * is down or stalled instead of waiting for the Redis command timeout.
		 */
		private Duration timeout = Duration.ofSeconds(5);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			Assert.isTrue(timeout.toMillis() > 0, () -> "timeout must be at least 1 ms; got " + timeout);
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of recurring jobs (@Recurring).
	 */
	public static class Recurring {

		/**
		 * Time zone of cron expressions that name none.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * How late a scheduler that fell behind may still enqueue a tick, at least 100ms.
		 * Further behind, the ticks since the latest one recorded in Redis count as
		 * missed.
		 */
		private Duration maxLateness = Duration.ofMinutes(1);

		public Duration getMaxLateness() {
			return this.maxLateness;
		}

		public void setMaxLateness(Duration maxLateness) {
			this.maxLateness = maxLateness;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

	}

}
