package io.redq.queue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.redq.queue.core.BatchMember;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.RedisJobQueueOperations;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Answers "what is in my queues" for an application: the one list of its queues (those of
 * the jobs it handles, those of the jobs it dispatches or configures, those the live
 * application instances consume, and those found in Redis under the key prefix that no
 * job here uses), the instances, and parsed views of the jobs. The actuator endpoint, the
 * health indicator, the gauges and the dashboard read through it. It is a front to parts
 * with one purpose each: the list of queues ({@code QueueDiscovery}), their counts and
 * statistics ({@code QueueSnapshots}) and their jobs ({@code JobReader}); changes go
 * through {@link #getOperations()}.
 * <p>
 * Costs: a snapshot is one script call ({@link #recentSnapshot(String)} takes at most one
 * per queue per second, however many callers ask); a page of jobs is five commands on the
 * queue's keys, one job six; a search or a filtered read of dead jobs reads at most
 * {@value #MAX_SEARCH_READS} entries per queue, a few hundred at a time; the instances
 * are read from their registry at most once a second. Queues that neither this
 * application's jobs nor a live instance name are found with a bounded {@code SCAN} for
 * the queues' model keys (on every master of a Redis Cluster), at most once per
 * {@link #setDiscoveryInterval(Duration) discovery interval} and only when asked: each
 * round sends at most 10 {@code SCAN} calls of {@code COUNT} 1,000 and goes on where the
 * round before stopped, so a pass over a key space of {@code K} keys takes about
 * {@code K / 10,000} rounds. A page of batches is one command on their index and two per
 * batch; a job's result is read up to {@value #MAX_RESULT_READ} bytes. The views are read
 * without a transaction: a job that moves while a page is read may be missing from it or
 * shown with its newer state. On a sharded queue a snapshot and the statistics are read
 * per shard and added up, a page of jobs reads the first {@code offset + count} entries
 * of each shard (and of ready jobs their envelopes, to merge them by level and age), and
 * a search reads the shards in turn within the same bound.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobQueueInspector {

	/** The most jobs a page holds. */
	public static final int MAX_PAGE_SIZE = 100;

	/** The most bytes of a job's result read for display. */
	public static final int MAX_RESULT_READ = 4096;

	/** The most entries one search or filtered read of dead jobs reads. */
	public static final int MAX_SEARCH_READS = 10_000;

	/**
	 * The most entries the searches and filtered reads of dead jobs of one instance read
	 * per second, all together.
	 */
	public static final int MAX_SEARCH_READS_PER_SECOND = 50_000;

	/** The most queues found in Redis that are listed. */
	public static final int MAX_DISCOVERED_QUEUES = 1000;

	/**
	 * The longest a {@link #read(Supplier) request's reads} take unless told otherwise.
	 */
	public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

	/** How many hours of statistics a queue keeps unless told otherwise: a week. */
	public static final int DEFAULT_STATISTICS_HOURS = 168;

	/** The most hours of statistics a queue keeps: 30 days. */
	public static final int MAX_STATISTICS_HOURS = 720;

	private final RedisJobQueueOperations operations;

	private final QueueDiscovery discovery;

	private final QueueSnapshots snapshots;

	private final JobReader reader;

	private final QueueReader queueReader;

	private @Nullable RecurringJobs recurringJobs;

	private Duration readTimeout = DEFAULT_READ_TIMEOUT;

	private final ExecutorService readers = readers();

	/**
	 * Create an instance.
	 * @param operations the queue operations
	 * @param jobs the jobs of this application
	 */
	public JobQueueInspector(RedisJobQueueOperations operations, JobDefinitions jobs) {
		this.operations = operations;
		this.queueReader = new QueueReader(operations.getStore());
		this.discovery = new QueueDiscovery(jobs, this.queueReader);
		this.snapshots = new QueueSnapshots(operations, this.queueReader);
		this.reader = new JobReader(operations, this.queueReader, this::queueNames);
	}

	/**
	 * Set how long the list of queues found in Redis is reused before the next round of
	 * the scan for queues; zero scans on every call, a negative duration never scans
	 * (only the queues of this application's jobs and of the live instances are listed).
	 * <p>
	 * Default 30 seconds.
	 * @param discoveryInterval the interval
	 */
	public void setDiscoveryInterval(Duration discoveryInterval) {
		this.discovery.setInterval(discoveryInterval);
	}

	/**
	 * Set the longest the reads of one request may take as a whole (see
	 * {@link #read(Supplier)}), so that a request answers within about this time while
	 * Redis is down or stalled instead of waiting for the Redis command timeout.
	 * <p>
	 * Default 5 seconds.
	 * @param readTimeout the timeout, positive
	 */
	public void setReadTimeout(Duration readTimeout) {
		Assert.isTrue(readTimeout.toMillis() > 0, () -> "The read timeout must be at least 1 ms, not " + readTimeout);
		this.readTimeout = readTimeout;
	}

	/**
	 * Return the longest wait for each call of the changes that the callers make through
	 * {@link #getBatchOperations()} and {@link #getChainOperations()} and pass a timeout
	 * of their own, such as the dashboard's cancels of a batch or chain: the timeout the
	 * {@link #getOperations() operations} use for theirs (the dispatcher's).
	 * @return the timeout, or {@code null} for Lettuce's command timeout
	 */
	public @Nullable Duration getChangeTimeout() {
		return this.operations.getTimeout();
	}

	/**
	 * Run the reads of one request (a page of the dashboard, an operation of the actuator
	 * endpoint, a health check) within the {@link #setReadTimeout(Duration) read
	 * timeout}, as a whole: they run on a thread of the inspector's, which is interrupted
	 * when the timeout passes, and that stops the Redis command it waits for.
	 * @param <T> the result type
	 * @param reads the reads, through this inspector; they must change nothing, since
	 * they may be stopped at any command
	 * @return what the reads returned
	 * @throws QueryTimeoutException when Redis did not answer them within the timeout
	 */
	public <T> T read(Supplier<T> reads) {
		Future<T> result = this.readers.submit(reads::get);
		try {
			return result.get(this.readTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			result.cancel(true);
			throw new QueryTimeoutException("Redis did not answer the reads of the queues within "
					+ this.readTimeout.toMillis() + " ms: it is down, unreachable or overloaded. Check that Redis is "
					+ "up and reachable; asking again is harmless.");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException("Could not read the queues", ex.getCause());
		}
		catch (InterruptedException ex) {
			result.cancel(true);
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while reading the queues", ex);
		}
	}

	/**
	 * Set the registry of the application instances, to list them and the queues they
	 * consume.
	 * @param instances the registry
	 */
	public void setInstances(InstanceRegistry instances) {
		this.discovery.setInstances(instances);
	}

	/**
	 * Return the live application instances with the queues they consume, latest
	 * heartbeat first, at most a second old.
	 * @return the instances; none without a {@link #setInstances registry}
	 */
	public List<InstanceView> instances() {
		InstanceRegistry instances = this.discovery.getInstances();
		return (instances != null) ? instances.instances() : List.of();
	}

	/**
	 * Set how long the per-hour statistics of the queues are kept, in whole hours: the
	 * size of each queue's ring of hourly buckets, which the scripts read from Redis.
	 * {@link #applyStatisticsRetention()} writes it.
	 * <p>
	 * Default 7 days.
	 * @param retention the retention, 1 hour to 30 days
	 */
	public void setStatisticsRetention(Duration retention) {
		this.snapshots.setStatisticsRetention(retention);
	}

	/**
	 * Write the statistics retention to each {@link #knownQueues() known queue} whose
	 * statistics keep another: one {@code HGET} per queue, and one {@code HSET} where it
	 * differs. Queues only found in Redis keep theirs (7 days unless set).
	 */
	public void applyStatisticsRetention() {
		this.snapshots.applyStatisticsRetention(knownQueues());
	}

	/**
	 * Return a queue's statistics at most a second old: Redis is read (one
	 * {@code HGETALL} of a hash of at most 60 plus the retention's hours fields, and
	 * {@code TIME}) at most once per queue and second however many callers ask.
	 * @param queue the queue
	 * @return the statistics
	 */
	public QueueStatistics statistics(String queue) {
		return this.snapshots.statistics(queue);
	}

	/**
	 * Return a queue's counts per minute over the last hour, at most a second old: Redis
	 * is read (one {@code HMGET} of the 60 minute buckets, and {@code TIME}) at most once
	 * per queue and second however many callers ask. Cheaper than
	 * {@link #statistics(String)} for a list of queues, as it leaves out the hours.
	 * @param queue the queue
	 * @return the last 60 minutes, oldest first, the current minute last
	 */
	public List<QueueStatistics.Bucket> minutes(String queue) {
		return this.snapshots.minutes(queue);
	}

	/**
	 * Set the recurring jobs of this application, to list them.
	 * @param recurringJobs the recurring jobs
	 */
	public void setRecurringJobs(RecurringJobs recurringJobs) {
		this.recurringJobs = recurringJobs;
	}

	/**
	 * Return the recurring jobs of this application, if it schedules any.
	 * @return them, or {@code null} when recurring jobs are off
	 */
	public @Nullable RecurringJobs getRecurringJobs() {
		return this.recurringJobs;
	}

	/**
	 * List the recurring jobs of this application with their latest tick: one
	 * {@code HGET} per job besides what {@link RecurringJobs#list()} reads.
	 * @return the recurring jobs, by name; none when recurring jobs are off
	 */
	public List<RecurringJobView> recurringJobs() {
		if (this.recurringJobs == null) {
			return List.of();
		}
		List<RecurringJobView> views = new ArrayList<>();
		for (RecurringJobInfo info : this.recurringJobs.list()) {
			String last = this.queueReader.recurringState(info.queue(), info.name(), "last");
			views.add(new RecurringJobView(info,
					(last != null && !last.isEmpty()) ? Instant.ofEpochMilli(Long.parseLong(last)) : null));
		}
		return views;
	}

	/**
	 * Return the operations the views are read with and the changes are made through.
	 * @return the queue operations
	 */
	public JobQueueOperations getOperations() {
		return this.operations;
	}

	/**
	 * Return the queues of the jobs this application handles.
	 * @return their names, sorted
	 */
	public SortedSet<String> handledQueues() {
		return this.discovery.handledQueues();
	}

	/**
	 * Return the queues of the jobs this application handles, dispatches or configures;
	 * read from memory, never from Redis.
	 * @return their names, sorted
	 */
	public SortedSet<String> knownQueues() {
		return this.discovery.knownQueues();
	}

	/**
	 * Return every queue: the {@link #knownQueues() known} ones, those the live instances
	 * consume and those found in Redis.
	 * @return their names, sorted
	 */
	public SortedSet<String> queueNames() {
		return this.discovery.queueNames();
	}

	/**
	 * Return whether a queue is a {@link #knownQueues() known} one, one a live instance
	 * consumes or one that Redis holds; asks Redis (one {@code EXISTS}) only when it is
	 * neither of the first two, and reports a queue created since the last scan too.
	 * @param queue the queue name
	 * @return whether it exists
	 */
	public boolean exists(String queue) {
		return this.discovery.exists(queue);
	}

	/**
	 * Describe every queue, each from a {@link #recentSnapshot(String) recent snapshot}.
	 * @return the queues, sorted by name
	 */
	public List<InspectedQueue> queues() {
		SortedSet<String> handled = handledQueues();
		SortedSet<String> known = knownQueues();
		List<InspectedQueue> queues = new ArrayList<>();
		for (String queue : queueNames()) {
			boolean isHandled = handled.contains(queue);
			queues
				.add(new InspectedQueue(queue, isHandled, !isHandled && known.contains(queue), recentSnapshot(queue)));
		}
		return queues;
	}

	/**
	 * Read a queue's counts, oldest ready age and pause state now.
	 * @param queue the queue
	 * @return the snapshot
	 */
	public QueueSnapshot snapshot(String queue) {
		return this.snapshots.snapshot(queue);
	}

	/**
	 * Return a queue's snapshot at most a second old: Redis is read at most once per
	 * queue and second however many callers ask.
	 * @param queue the queue
	 * @return the snapshot
	 */
	public QueueSnapshot recentSnapshot(String queue) {
		return this.snapshots.recentSnapshot(queue);
	}

	/**
	 * Read the counts of each shard of a queue now (see "Scaling out"): one for a queue
	 * of one shard.
	 * @param queue the queue
	 * @return the snapshots, the first shard first
	 */
	public List<QueueSnapshot> shardSnapshots(String queue) {
		return this.operations.shardSnapshots(queue);
	}

	/**
	 * Read each shard of a queue now: where it lives (its hash tag, and on a Redis
	 * Cluster its slot and master) and its counts. One for a queue of one shard.
	 * @param queue the queue
	 * @return the shards, the first shard first
	 */
	public List<ShardView> shards(String queue) {
		List<QueueReader.ShardPlace> places = this.queueReader.shardPlaces(queue);
		List<QueueSnapshot> snapshots = shardSnapshots(queue);
		List<ShardView> shards = new ArrayList<>(places.size());
		for (int i = 0; i < Math.min(places.size(), snapshots.size()); i++) {
			QueueReader.ShardPlace place = places.get(i);
			shards.add(new ShardView(place.hashTag(), place.slot(), place.master(), snapshots.get(i)));
		}
		return shards;
	}

	/**
	 * Read a page of a queue's jobs in one state.
	 * @param queue the queue
	 * @param state the state: ready, delayed, reserved, dead or completed
	 * @param offset how many to skip, at least 0
	 * @param count the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the page
	 */
	public JobPage jobs(String queue, JobStatus.State state, int offset, int count) {
		return this.reader.jobs(queue, state, offset, count);
	}

	/**
	 * Read one job, wherever it is, with the stack trace of its last failure.
	 * @param queue the queue
	 * @param id the job id
	 * @return the job, or {@code null} when no job with that id is pending, running, dead
	 * or among the kept completed ones
	 */
	public @Nullable JobView job(String queue, String id) {
		return this.reader.job(queue, id);
	}

	/**
	 * Read the stored result of a completed job, at most {@value #MAX_RESULT_READ} bytes
	 * of it.
	 * @param queue the queue
	 * @param id the job id
	 * @return the result, or {@code null} when none is kept: the job has not completed,
	 * returned nothing, or its result expired
	 */
	public @Nullable ResultView result(String queue, String id) {
		return this.reader.result(queue, id, MAX_RESULT_READ);
	}

	/**
	 * Read a page of the batches, newest first, from the index of the batches: one
	 * command for the page and two per batch. The batches of the page that expired are
	 * dropped from the index.
	 * @param offset how many of the newest to skip, at least 0
	 * @param count the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the page
	 */
	public BatchPage batches(int offset, int count) {
		Assert.isTrue(offset >= 0, "offset must not be negative");
		Assert.isTrue(count >= 1 && count <= MAX_PAGE_SIZE, () -> "count must be between 1 and " + MAX_PAGE_SIZE);
		BatchOperations batches = getBatchOperations();
		List<BatchView> found = new ArrayList<>();
		List<String> expired = new ArrayList<>();
		batches.listed(offset, count)
			.forEach((id, createdAt) -> batches.find(id)
				.ifPresentOrElse((status) -> found.add(new BatchView(status, createdAt)), () -> expired.add(id)));
		batches.unlist(expired);
		return new BatchPage(batches.listedCount(), offset, found);
	}

	/**
	 * Read one batch.
	 * @param batchId the batch id
	 * @return the batch, or {@code null} when none is kept under that id
	 */
	public @Nullable BatchView batch(String batchId) {
		BatchOperations batches = getBatchOperations();
		return batches.find(batchId).map((status) -> new BatchView(status, batches.createdAt(batchId))).orElse(null);
	}

	/**
	 * Read a page of a batch's dead members, in the order their deaths were handed over.
	 * @param batchId the batch id
	 * @param offset how many to skip, at least 0
	 * @param count the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the members
	 */
	public List<BatchMember> deadBatchMembers(String batchId, int offset, int count) {
		Assert.isTrue(count >= 1 && count <= MAX_PAGE_SIZE, () -> "count must be between 1 and " + MAX_PAGE_SIZE);
		return getBatchOperations().deadMembers(batchId, offset, count);
	}

	/**
	 * Read a page of the chains, newest first, from the index of the chains: one command
	 * for the page and two per chain. The chains of the page that expired are dropped
	 * from the index.
	 * @param offset how many of the newest to skip, at least 0
	 * @param count the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the page
	 */
	public ChainPage chains(int offset, int count) {
		Assert.isTrue(offset >= 0, "offset must not be negative");
		Assert.isTrue(count >= 1 && count <= MAX_PAGE_SIZE, () -> "count must be between 1 and " + MAX_PAGE_SIZE);
		ChainOperations chains = getChainOperations();
		List<ChainView> found = new ArrayList<>();
		List<String> expired = new ArrayList<>();
		chains.listed(offset, count)
			.forEach((id, createdAt) -> chains.find(id)
				.ifPresentOrElse((status) -> found.add(new ChainView(status, createdAt)), () -> expired.add(id)));
		chains.unlist(expired);
		return new ChainPage(chains.listedCount(), offset, found);
	}

	/**
	 * Read one chain with its steps.
	 * @param chainId the chain id
	 * @return the chain, or {@code null} when none is kept under that id
	 */
	public @Nullable ChainView chain(String chainId) {
		ChainOperations chains = getChainOperations();
		return chains.find(chainId).map((status) -> new ChainView(status, chains.createdAt(chainId))).orElse(null);
	}

	/**
	 * Return the chain operations, to change chains.
	 * @return the chain operations
	 */
	public ChainOperations getChainOperations() {
		return this.operations.getChainOperations();
	}

	/**
	 * Return the batch operations, to change batches.
	 * @return the batch operations
	 */
	public BatchOperations getBatchOperations() {
		return this.operations.getBatchOperations();
	}

	/**
	 * Search every queue for jobs, reading at most {@value #MAX_SEARCH_READS} entries in
	 * all: the exact id in each queue (one entry each), then ids or job names in the jobs
	 * hashes, or errors in the errors hashes, queue by queue.
	 * @param by what to match: the id (or timer key), the job name or the error
	 * @param text the id or a part of it, the job name, or a part of the error such as an
	 * exception class name
	 * @param limit the most jobs to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the jobs found
	 */
	public SearchResult search(SearchBy by, String text, int limit) {
		return this.reader.search(by, text, limit);
	}

	/**
	 * Read a queue's dead jobs, newest first, that match a job name and a part of their
	 * error, reading at most {@value #MAX_SEARCH_READS} dead jobs.
	 * @param queue the queue
	 * @param job the job name, or {@code null} for any
	 * @param error a part of the error, such as an exception class name, or {@code null}
	 * for any
	 * @param limit the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the dead jobs found
	 */
	public SearchResult deadJobs(String queue, @Nullable String job, @Nullable String error, int limit) {
		return this.reader.deadJobs(queue, job, error, limit, null);
	}

	/**
	 * Read a queue's dead jobs that died at or before a cutoff as
	 * {@link #deadJobs(String, String, String, int)} does: one more {@code ZCOUNT} skips
	 * those that died later. A caller that goes through the matching dead jobs over
	 * several calls, changing each batch, passes the time of its first call (see
	 * {@link #latestDeath(String)}), so that jobs it retried that died again are not
	 * taken again.
	 * @param queue the queue
	 * @param job the job name, or {@code null} for any
	 * @param error a part of the error, or {@code null} for any
	 * @param limit the most to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @param diedBy the cutoff (Redis clock)
	 * @return the dead jobs found
	 */
	public SearchResult deadJobs(String queue, @Nullable String job, @Nullable String error, int limit,
			Instant diedBy) {
		return this.reader.deadJobs(queue, job, error, limit, diedBy);
	}

	/**
	 * Return when the latest dead job of a queue died, as a cutoff of
	 * {@link #deadJobs(String, String, String, int, Instant)}: one {@code ZREVRANGE}.
	 * @param queue the queue
	 * @return the time (Redis clock), or {@code null} when no job is dead
	 */
	public @Nullable Instant latestDeath(String queue) {
		return this.reader.latestDeath(queue);
	}

	/**
	 * Return whether an exception means Redis could not be reached or did not answer in
	 * time, rather than that a request was wrong.
	 * @param ex the exception
	 * @return whether Redis is unavailable
	 */
	public static boolean isRedisUnavailable(Throwable ex) {
		return ex instanceof DataAccessResourceFailureException || ex instanceof QueryTimeoutException;
	}

	/**
	 * Parse a stored envelope.
	 * @param envelope the envelope as stored
	 * @return a map of its JSON object, or the text when it is not a JSON object
	 */
	public Object envelope(String envelope) {
		return this.reader.envelope(envelope);
	}

	// a thread per request in flight, since each waits for Redis; idle ones end
	private static ExecutorService readers() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("redq-inspect-");
		threads.setDaemon(true);
		return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
	}

	/**
	 * What a search matches.
	 */
	public enum SearchBy {

		/** The job id, which is a timer's key, or a part of it. */
		ID,

		/** The job name. */
		JOB,

		/** A part of the last error, such as an exception class name. */
		ERROR

	}

}
