package io.redq.queue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.PreparedJob;
import io.redq.queue.redis.RecurringOperations;
import io.redq.queue.redis.RecurringOperations.Keys;
import io.redq.queue.redis.RecurringOperations.Tick;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.RecurringScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Enqueues the ticks of recurring jobs, each tick once across all application instances,
 * and implements {@link RecurringJobs}.
 *
 * <p>
 * One thread sleeps until the next tick of any job and then runs a script that enqueues
 * the tick only if it is due on the Redis clock and later than the latest tick recorded
 * for the job, and records it. So every instance may schedule every job: the first to get
 * to a tick enqueues it and the others find it recorded. Redis is not polled between
 * ticks. A paused job's ticks are recorded and dropped.
 *
 * <p>
 * A scheduler that falls behind (load, a pause, Redis slow to answer) enqueues the late
 * ticks one by one. Ticks are missed only when no scheduler was running to enqueue them:
 * every instance was down, or the scheduler was more than the
 * {@linkplain #setMaxLateness(Duration) maximum lateness} behind (a suspended machine,
 * Redis unreachable). The scheduler then starts over as on startup: the ticks since the
 * latest one recorded in Redis follow the job's {@link MissedTicks} policy. Nothing is
 * caught up for a job that has no recorded tick yet (its first start). The scripts and
 * the Redis clock are {@link RecurringOperations}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class RecurringJobScheduler implements RecurringJobs, SmartLifecycle {

	/** The default zone of cron expressions that name none. */
	public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");

	/** The default maximum lateness. */
	public static final Duration DEFAULT_MAX_LATENESS = Duration.ofMinutes(1);

	private static final Duration MIN_MAX_LATENESS = Duration.ofMillis(100);

	private static final long RETRY_DELAY_MILLIS = 1000;

	private static final long STOP_TIMEOUT_SECONDS = 5;

	private static final Log logger = LogFactory.getLog(RecurringJobScheduler.class);

	private final RecurringOperations redis;

	private final RedisJobDispatcher dispatcher;

	private final Map<String, Entry> entries = new ConcurrentHashMap<>();

	private final Object lifecycleMonitor = new Object();

	private ZoneId defaultZone = DEFAULT_ZONE;

	private volatile Duration maxLateness = DEFAULT_MAX_LATENESS;

	private boolean autoStartup = true;

	private volatile boolean running;

	private @Nullable ScheduledThreadPoolExecutor executor;

	/**
	 * Create an instance.
	 * @param operations the queues the ticks are enqueued in
	 * @param scripts the recurring job scripts
	 * @param dispatcher the dispatcher that prepares the ticks as it prepares dispatches,
	 * interceptors included, and enqueues triggered runs at once
	 */
	public RecurringJobScheduler(RedisJobQueueOperations operations, RecurringScripts scripts,
			RedisJobDispatcher dispatcher) {
		this.redis = new RecurringOperations(operations, scripts);
		this.dispatcher = dispatcher;
	}

	/**
	 * Set the time zone of cron expressions that name none.
	 * <p>
	 * Default UTC, the same on every instance whatever its own time zone.
	 * @param defaultZone the zone
	 */
	public void setDefaultZone(ZoneId defaultZone) {
		this.defaultZone = defaultZone;
	}

	/**
	 * Return the time zone of cron expressions that name none.
	 * @return the zone
	 */
	public ZoneId getDefaultZone() {
		return this.defaultZone;
	}

	/**
	 * Set how late the scheduler may enqueue a tick. Further behind, it starts over as on
	 * startup: the ticks since the latest one recorded in Redis are missed.
	 * <p>
	 * Default 1 minute.
	 * @param maxLateness the maximum lateness, at least 100 ms
	 */
	public void setMaxLateness(Duration maxLateness) {
		// ticks are enqueued a few milliseconds late: less would miss every tick
		Assert.isTrue(maxLateness.compareTo(MIN_MAX_LATENESS) >= 0, () -> "redq.recurring.max-lateness must be at "
				+ "least 100ms, as ticks are enqueued a few milliseconds after their time; got " + maxLateness);
		this.maxLateness = maxLateness;
	}

	/**
	 * Set whether the scheduler starts with the application context.
	 * <p>
	 * Default {@code true}.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Register a recurring job; it is scheduled once the scheduler runs.
	 * @param definition the job and its schedule
	 * @throws IllegalStateException when a recurring job of that name is registered
	 * already
	 */
	public void register(RecurringJobDefinition definition) {
		JobDefinition job = definition.job();
		QueueNames.validateId(tickId(job.name(), Long.MAX_VALUE));
		Entry entry = new Entry(definition, this.redis.keys(job));
		synchronized (this.lifecycleMonitor) {
			Assert.state(this.entries.putIfAbsent(job.name(), entry) == null,
					() -> "A recurring job named '" + job.name() + "' is already registered");
			if (this.running) {
				execute(entry, this::begin);
			}
		}
	}

	/**
	 * Return the registered recurring jobs, without their state in Redis.
	 * @return the definitions, by name
	 */
	public List<RecurringJobDefinition> getDefinitions() {
		return this.entries.values()
			.stream()
			.map((entry) -> entry.definition)
			.sorted(Comparator.comparing(RecurringJobDefinition::name))
			.toList();
	}

	// -- RecurringJobs

	@Override
	public List<RecurringJobInfo> list() {
		List<RecurringJobInfo> jobs = new ArrayList<>();
		for (RecurringJobDefinition definition : getDefinitions()) {
			jobs.add(info(this.entries.get(definition.name())));
		}
		return jobs;
	}

	@Override
	public RecurringJobInfo get(String name) {
		return info(entry(name));
	}

	@Override
	public boolean pause(String name) {
		return setPaused(entry(name), true);
	}

	@Override
	public boolean resume(String name) {
		return setPaused(entry(name), false);
	}

	@Override
	public String trigger(String name) {
		Entry entry = entry(name);
		Instant now = Instant.ofEpochMilli(this.redis.syncClock());
		return this.dispatcher
			.dispatch(JobRequest.of(entry.definition.name(), now).header(RUN_HEADER, "trigger").build())
			.id();
	}

	private RecurringJobInfo info(Entry entry) {
		RecurringJobDefinition definition = entry.definition;
		Instant next = definition.schedule().next(Instant.ofEpochMilli(this.redis.now()));
		return new RecurringJobInfo(definition.name(), definition.job().queue(), definition.schedule(),
				definition.missedTicks(), next, this.redis.isPaused(entry.keys));
	}

	private boolean setPaused(Entry entry, boolean paused) {
		boolean result = this.redis.setPaused(entry.keys, paused);
		if (result) {
			logger.info((paused ? "Paused" : "Resumed") + " recurring job '" + entry.definition.name() + "'");
		}
		return result;
	}

	private Entry entry(String name) {
		Entry entry = this.entries.get(name);
		if (entry == null) {
			throw new IllegalArgumentException("No recurring job named '" + name + "' in this application. "
					+ "Recurring jobs: " + getDefinitions().stream().map(RecurringJobDefinition::name).toList());
		}
		return entry;
	}

	// -- lifecycle

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			CustomizableThreadFactory threadFactory = new CustomizableThreadFactory("redq-recurring-");
			threadFactory.setDaemon(true);
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threadFactory);
			executor.setRemoveOnCancelPolicy(true);
			executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
			this.executor = executor;
			this.running = true;
			this.entries.values().forEach((entry) -> execute(entry, this::begin));
			logger.info("Started recurring job scheduler with jobs " + getDefinitions().stream()
				.map((definition) -> definition.name() + " (" + definition.schedule() + ")")
				.toList());
		}
	}

	@Override
	public void stop() {
		ScheduledThreadPoolExecutor executor;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			executor = this.executor;
			this.executor = null;
		}
		// a tick in progress finishes; the waiting ones are dropped
		executor.shutdown();
		try {
			if (!executor.awaitTermination(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				executor.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			executor.shutdownNow();
			Thread.currentThread().interrupt();
		}
		logger.info("Stopped recurring job scheduler");
	}

	// -- scheduling, on the scheduler thread

	/**
	 * Start scheduling a job: catch up missed ticks as its policy says, then plan its
	 * next tick.
	 */
	private void begin(Entry entry) {
		try {
			long now = this.redis.now();
			RecurringSchedule schedule = entry.definition.schedule();
			entry.planned = schedule.next(now);
			long latest = schedule.latest(now);
			if (latest >= 0 && entry.definition.missedTicks() == MissedTicks.RUN_ONCE
					&& submit(entry, latest, true).notDue()) {
				// this clock ran ahead of Redis: the tick is still to come
				entry.planned = latest;
			}
			plan(entry);
		}
		catch (RuntimeException ex) {
			retry(entry, this::begin, ex);
		}
	}

	/**
	 * Enqueue a job's planned tick unless another instance did, and plan the next one;
	 * start over when too far behind.
	 */
	private void fire(Entry entry) {
		try {
			long tick = entry.planned;
			long lateness = this.redis.now() - tick;
			if (lateness > this.maxLateness.toMillis()) {
				logger.warn("Recurring job '" + entry.definition.name() + "' is " + Duration.ofMillis(lateness)
						+ " behind its tick at " + Instant.ofEpochMilli(tick)
						+ "; its ticks since the latest one recorded are missed (" + entry.definition.missedTicks()
						+ ")");
				begin(entry);
				return;
			}
			if (!submit(entry, tick, false).notDue()) {
				entry.planned = entry.definition.schedule().next(tick);
			}
			plan(entry);
		}
		catch (RuntimeException ex) {
			retry(entry, this::fire, ex);
		}
	}

	private Tick submit(Entry entry, long tick, boolean catchUp) {
		JobDefinition job = entry.definition.job();
		PreparedJob run = this.dispatcher.prepare(JobRequest.of(job.name(), Instant.ofEpochMilli(tick))
			.id(tickId(job.name(), tick))
			.header(RUN_HEADER, catchUp ? "catch-up" : "tick")
			.build());
		Tick result = this.redis.tick(run, entry.keys, tick, catchUp);
		if (result.enqueued()) {
			if (catchUp) {
				logger.info("Enqueued recurring job '" + job.name() + "' once for its missed ticks, the latest at "
						+ Instant.ofEpochMilli(tick));
			}
			else if (logger.isDebugEnabled()) {
				logger
					.debug("Enqueued recurring job '" + job.name() + "' for its tick at " + Instant.ofEpochMilli(tick));
			}
		}
		return result;
	}

	private void plan(Entry entry) {
		if (entry.planned < 0) {
			logger.info("Recurring job '" + entry.definition.name() + "' has no further ticks");
			return;
		}
		schedule(entry, this::fire, Math.max(0, entry.planned - this.redis.now()));
	}

	private void retry(Entry entry, EntryTask task, RuntimeException ex) {
		if (!this.running) {
			return;
		}
		logger.warn("Could not schedule recurring job '" + entry.definition.name() + "', retrying in "
				+ RETRY_DELAY_MILLIS + "ms: " + ex);
		schedule(entry, task, RETRY_DELAY_MILLIS);
	}

	private void execute(Entry entry, EntryTask task) {
		schedule(entry, task, 0);
	}

	private void schedule(Entry entry, EntryTask task, long delayMillis) {
		ScheduledThreadPoolExecutor executor = this.executor;
		if (executor == null) {
			return;
		}
		try {
			executor.schedule(() -> task.run(entry), delayMillis, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopped meanwhile
		}
	}

	private static String tickId(String job, long tick) {
		return job + "@" + tick;
	}

	@FunctionalInterface
	private interface EntryTask {

		void run(Entry entry);

	}

	private static final class Entry {

		private final RecurringJobDefinition definition;

		private final Keys keys;

		/** The next tick to enqueue, -1 for none; used on the scheduler thread only. */
		private long planned = -1;

		private Entry(RecurringJobDefinition definition, Keys keys) {
			this.definition = definition;
			this.keys = keys;
		}

	}

}
