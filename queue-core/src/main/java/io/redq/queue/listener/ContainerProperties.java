package io.redq.queue.listener;

import java.time.Duration;

import io.redq.queue.redis.ListenerOperations;

import org.springframework.util.Assert;

/**
 * Settings of a {@link JobListenerContainer}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ContainerProperties {

	/** The default number of jobs run at once. */
	public static final int DEFAULT_CONCURRENCY = 8;

	/** The default most jobs reserved in one round trip. */
	public static final int DEFAULT_BATCH_SIZE = 64;

	/** The default most jobs reserved ahead of free workers. */
	public static final int DEFAULT_PREFETCH = 128;

	/** The default longest wait for a wake-up before an idle container looks again. */
	public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofSeconds(5);

	/** The default lease. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/**
	 * The longest lease of a job reserved ahead that waits for a worker: a job an
	 * instance reserved ahead and never started goes to another instance about this long
	 * after the first one stalled or died, not after the full lease.
	 */
	public static final Duration WAITING_LEASE_TIME = Duration.ofSeconds(5);

	/** The default time running jobs get to finish on stop. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

	private int concurrency = DEFAULT_CONCURRENCY;

	private int batchSize = DEFAULT_BATCH_SIZE;

	private int prefetch = DEFAULT_PREFETCH;

	private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;

	private Duration leaseTime = DEFAULT_LEASE_TIME;

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private boolean autoStartup = true;

	private boolean virtualThreads;

	private int maxRunning;

	private int groupMaxRunning;

	private int maxStalls = ListenerOperations.DEFAULT_MAX_STALLS;

	/**
	 * Create settings with the defaults.
	 */
	public ContainerProperties() {
	}

	/**
	 * Create a copy of other settings.
	 * @param other the settings to copy
	 */
	public ContainerProperties(ContainerProperties other) {
		this.concurrency = other.concurrency;
		this.batchSize = other.batchSize;
		this.prefetch = other.prefetch;
		this.pollTimeout = other.pollTimeout;
		this.leaseTime = other.leaseTime;
		this.shutdownTimeout = other.shutdownTimeout;
		this.autoStartup = other.autoStartup;
		this.virtualThreads = other.virtualThreads;
		this.maxRunning = other.maxRunning;
		this.groupMaxRunning = other.groupMaxRunning;
		this.maxStalls = other.maxStalls;
	}

	/**
	 * Return the number of jobs run at once.
	 * @return the concurrency
	 */
	public int getConcurrency() {
		return this.concurrency;
	}

	/**
	 * Set the number of jobs run at once.
	 * <p>
	 * Default {@value #DEFAULT_CONCURRENCY}.
	 * @param concurrency the concurrency, at least 1
	 */
	public void setConcurrency(int concurrency) {
		Assert.isTrue(concurrency >= 1, "concurrency must be at least 1");
		this.concurrency = concurrency;
	}

	/**
	 * Return the most jobs reserved in one round trip.
	 * @return the batch size
	 */
	public int getBatchSize() {
		return this.batchSize;
	}

	/**
	 * Set the most jobs reserved in one round trip (never more than there are free
	 * workers and prefetch places).
	 * <p>
	 * Default {@value #DEFAULT_BATCH_SIZE}.
	 * @param batchSize the batch size, from 1 to 1000
	 */
	public void setBatchSize(int batchSize) {
		Assert.isTrue(batchSize >= 1 && batchSize <= 1000, "batchSize must be from 1 to 1000");
		this.batchSize = batchSize;
	}

	/**
	 * Return the most jobs reserved ahead of free workers.
	 * @return the prefetch
	 */
	public int getPrefetch() {
		return this.prefetch;
	}

	/**
	 * Set the most jobs reserved ahead of free workers, so that a worker that finishes a
	 * job finds the next one without a round trip to Redis. Only jobs the workers would
	 * start within about 100 ms at the recent job duration are reserved ahead (none
	 * before a job finished), so that long jobs wait in Redis for whichever instance has
	 * a free worker; when the jobs turn slow, the container hands back what it reserved
	 * ahead. Prefetched jobs keep renewed leases and a stopping container hands them
	 * back.
	 * <p>
	 * Default {@value #DEFAULT_PREFETCH}.
	 * @param prefetch the prefetch, 0 for none
	 */
	public void setPrefetch(int prefetch) {
		Assert.isTrue(prefetch >= 0, "prefetch must not be negative");
		this.prefetch = prefetch;
	}

	/**
	 * Return the longest wait for a wake-up before an idle container looks again.
	 * @return the poll timeout
	 */
	public Duration getPollTimeout() {
		return this.pollTimeout;
	}

	/**
	 * Set the longest wait for a wake-up before an idle container looks again; a safety
	 * net, since dispatches wake idle containers at once.
	 * <p>
	 * Default 5 seconds.
	 * @param pollTimeout the poll timeout
	 */
	public void setPollTimeout(Duration pollTimeout) {
		Assert.isTrue(pollTimeout.toMillis() > 0, "pollTimeout must be positive");
		this.pollTimeout = pollTimeout;
	}

	/**
	 * Return the lease.
	 * @return the lease time
	 */
	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	/**
	 * Set how long a running job stays with its worker without a renewal; the container
	 * renews leases of running jobs every third of it. A job whose worker died is run
	 * again after this time. A job reserved ahead that waits for a worker holds a shorter
	 * lease, at most {@link #WAITING_LEASE_TIME}, renewed every third of that while it
	 * waits; its worker's next renewal gives it the full lease once it started.
	 * <p>
	 * Default 30 seconds.
	 * @param leaseTime the lease time
	 */
	public void setLeaseTime(Duration leaseTime) {
		Assert.isTrue(leaseTime.toMillis() >= 30, "leaseTime must be at least 30ms");
		this.leaseTime = leaseTime;
	}

	/**
	 * Return the lease of a job reserved ahead that waits for a worker: the lease time,
	 * at most {@link #WAITING_LEASE_TIME}.
	 * @return the waiting lease time
	 */
	Duration getWaitingLeaseTime() {
		return (this.leaseTime.compareTo(WAITING_LEASE_TIME) < 0) ? this.leaseTime : WAITING_LEASE_TIME;
	}

	/**
	 * Return how long running jobs get to finish on stop.
	 * @return the shutdown timeout
	 */
	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Set how long running jobs get to finish on stop; jobs still running then are
	 * interrupted and handed back at once.
	 * <p>
	 * Default 20 seconds.
	 * @param shutdownTimeout the shutdown timeout
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Return whether the container starts with the application context.
	 * @return whether to start automatically
	 */
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Set whether the container starts with the application context.
	 * <p>
	 * Default {@code true}.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Return whether jobs run on virtual threads when the runtime has them (Java 21+).
	 * @return whether to use virtual threads
	 */
	public boolean isVirtualThreads() {
		return this.virtualThreads;
	}

	/**
	 * Set whether jobs run on virtual threads when the runtime has them (Java 21+);
	 * platform threads otherwise.
	 * <p>
	 * Default {@code false}, as Spring Boot's {@code spring.threads.virtual.enabled}.
	 * @param virtualThreads whether to use virtual threads
	 */
	public void setVirtualThreads(boolean virtualThreads) {
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Return how many jobs of the queue run at once across all application instances.
	 * @return the limit, 0 for none
	 */
	public int getMaxRunning() {
		return this.maxRunning;
	}

	/**
	 * Set how many jobs of the queue run at once across all application instances;
	 * further jobs wait.
	 * <p>
	 * Default 0: no limit.
	 * @param maxRunning the limit, 0 for none
	 */
	public void setMaxRunning(int maxRunning) {
		Assert.isTrue(maxRunning >= 0, "maxRunning must not be negative");
		this.maxRunning = maxRunning;
	}

	/**
	 * Return how many jobs of one group run at once across all application instances.
	 * @return the limit, 0 for none
	 */
	public int getGroupMaxRunning() {
		return this.groupMaxRunning;
	}

	/**
	 * Set how many jobs of one group (see {@code JobRequest.group}) run at once across
	 * all application instances; further jobs of that group wait while other groups' jobs
	 * run. Jobs in no group are not limited by it.
	 * <p>
	 * Default 0: no limit.
	 * @param groupMaxRunning the limit, 0 for none
	 */
	public void setGroupMaxRunning(int groupMaxRunning) {
		Assert.isTrue(groupMaxRunning >= 0, "groupMaxRunning must not be negative");
		this.groupMaxRunning = groupMaxRunning;
	}

	/**
	 * Return how many times a job's lease may expire before a renewal confirmed its run
	 * started, without using an attempt.
	 * @return the max stalls
	 */
	public int getMaxStalls() {
		return this.maxStalls;
	}

	/**
	 * Set how many times in its life a job's lease may expire before a lease renewal
	 * confirmed that its run started (a lost reserve reply, a job reserved ahead by an
	 * instance that stalled or died, a worker that died within its first renewal
	 * interval) without using an attempt; each later such expiry uses one, so that a job
	 * that kills its worker still ends dead. The container's migrator applies it, so the
	 * containers of one queue should agree.
	 * <p>
	 * Default {@value ListenerOperations#DEFAULT_MAX_STALLS}.
	 * @param maxStalls the max stalls, 0 to use an attempt for every expired lease
	 */
	public void setMaxStalls(int maxStalls) {
		Assert.isTrue(maxStalls >= 0, "maxStalls must not be negative");
		this.maxStalls = maxStalls;
	}

}
