package io.redq.queue.inspect;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.redq.queue.core.DeadJob;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.util.Assert;

/**
 * Answers "what is in my queues" for an application: the one list of its queues (those of
 * the jobs it handles, those of the jobs it dispatches or configures, and those found in
 * Redis under the key prefix that no job here uses) and parsed views of their jobs. The
 * actuator endpoint, the health indicator, the gauges and the dashboard read through it.
 * <p>
 * Costs: a snapshot is one script call ({@link #recentSnapshot(String)} takes at most one
 * per queue per second, however many callers ask); a page of jobs is five commands on the
 * queue's keys; a search or a filtered read of dead jobs reads at most
 * {@value #MAX_SEARCH_READS} entries per queue, a few hundred at a time; the queues in
 * Redis are found with {@code SCAN} for the queues' model keys (on every master of a
 * Redis Cluster), at most once per {@link #setDiscoveryInterval(Duration) discovery
 * interval} and only when asked, which reads the whole key space in batches of 1,000. The
 * views are read without a transaction: a job that moves while a page is read may be
 * missing from it or shown with its newer state.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobQueueInspector {

	/** The most jobs a page holds. */
	public static final int MAX_PAGE_SIZE = 100;

	/** The most entries a search or a filtered read reads per queue. */
	public static final int MAX_SEARCH_READS = 10_000;

	/** The most queues found in Redis that are listed. */
	public static final int MAX_DISCOVERED_QUEUES = 1000;

	/** How many hours of statistics a queue keeps unless told otherwise: a week. */
	public static final int DEFAULT_STATISTICS_HOURS = 168;

	/** The most hours of statistics a queue keeps: 30 days. */
	public static final int MAX_STATISTICS_HOURS = 720;

	private static final long SNAPSHOT_MAX_AGE_NANOS = Duration.ofSeconds(1).toNanos();

	private static final String STATISTICS_HOURS_FIELD = "hours";

	private static final int READ_BATCH = 200;

	private static final TypeReference<Map<String, Object>> ENVELOPE = new TypeReference<>() {
	};

	private final RedisJobQueueOperations operations;

	private final JobDefinitions jobs;

	private final String keyPrefix;

	private final JsonMapper jsonMapper;

	private final StringRedisTemplate redis;

	private final Map<String, RecentSnapshot> snapshots = new ConcurrentHashMap<>();

	private Duration discoveryInterval = Duration.ofSeconds(30);

	private int statisticsHours = DEFAULT_STATISTICS_HOURS;

	private @Nullable RecurringJobs recurringJobs;

	private final Map<String, RecentStatistics> statistics = new ConcurrentHashMap<>();

	private volatile Set<String> discovered = Set.of();

	private volatile long discoveredAt;

	private volatile boolean discoveredOnce;

	/**
	 * Create an instance.
	 * @param operations the queue operations
	 * @param jobs the jobs of this application
	 * @param keyPrefix the key prefix of the queues, as given to the operations
	 * @param jsonMapper the mapper that reads job envelopes
	 */
	public JobQueueInspector(RedisJobQueueOperations operations, JobDefinitions jobs, String keyPrefix,
			JsonMapper jsonMapper) {
		this.operations = operations;
		this.jobs = jobs;
		this.keyPrefix = QueueNames.validateKeyPrefix(keyPrefix);
		this.jsonMapper = jsonMapper;
		this.redis = operations.getStore().getTemplate();
	}

	/**
	 * Set how long the list of queues found in Redis is reused before Redis is scanned
	 * again; zero scans on every call, a negative duration never scans (only the queues
	 * of this application's jobs are listed).
	 * <p>
	 * Default 30 seconds.
	 * @param discoveryInterval the interval
	 */
	public void setDiscoveryInterval(Duration discoveryInterval) {
		this.discoveryInterval = discoveryInterval;
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
		long hours = retention.toHours();
		Assert.isTrue(hours >= 1 && hours <= MAX_STATISTICS_HOURS,
				() -> "The statistics retention must be 1 hour to 30 days, not " + retention);
		this.statisticsHours = (int) hours;
	}

	/**
	 * Write the statistics retention to each {@link #knownQueues() known queue} whose
	 * statistics keep another: one {@code HGET} per queue, and one {@code HSET} where it
	 * differs. Queues only found in Redis keep theirs (7 days unless set).
	 */
	public void applyStatisticsRetention() {
		String hours = Integer.toString(this.statisticsHours);
		for (String queue : knownQueues()) {
			String stats = this.operations.getStore().keys(queue).stats();
			if (!hours.equals(this.redis.opsForHash().get(stats, STATISTICS_HOURS_FIELD))) {
				this.redis.opsForHash().put(stats, STATISTICS_HOURS_FIELD, hours);
			}
		}
	}

	/**
	 * Return a queue's statistics at most a second old: Redis is read (one
	 * {@code HGETALL} of a hash of at most 60 plus the retention's hours fields, and
	 * {@code TIME}) at most once per queue and second however many callers ask.
	 * @param queue the queue
	 * @return the statistics
	 */
	public QueueStatistics statistics(String queue) {
		return this.statistics.computeIfAbsent(queue, RecentStatistics::new).get();
	}

	private QueueStatistics readStatistics(String queue) {
		Map<Object, Object> fields = this.redis.opsForHash().entries(this.operations.getStore().keys(queue).stats());
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		long minute = ((now != null) ? now : System.currentTimeMillis()) / 60_000;
		Object stored = fields.get(STATISTICS_HOURS_FIELD);
		int hours = (stored != null) ? Integer.parseInt((String) stored) : DEFAULT_STATISTICS_HOURS;
		return new QueueStatistics(buckets(fields, "m", minute, 60, 60_000),
				buckets(fields, "h", minute / 60, hours, 3_600_000));
	}

	// a bucket counts only when it holds the index asked for: else it is from an older
	// round of its ring, and nothing was counted since
	private static List<QueueStatistics.Bucket> buckets(Map<Object, Object> fields, String ring, long current, int size,
			long millis) {
		List<QueueStatistics.Bucket> buckets = new ArrayList<>(size);
		for (long index = current - size + 1; index <= current; index++) {
			long completed = 0;
			long failed = 0;
			long dead = 0;
			Object value = fields.get(ring + Math.floorMod(index, size));
			if (value != null) {
				String[] parts = ((String) value).split(" ");
				if (parts.length == 4 && Long.parseLong(parts[0]) == index) {
					completed = Long.parseLong(parts[1]);
					failed = Long.parseLong(parts[2]);
					dead = Long.parseLong(parts[3]);
				}
			}
			buckets.add(new QueueStatistics.Bucket(Instant.ofEpochMilli(index * millis), completed, failed, dead));
		}
		return buckets;
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
			Object last = this.redis.opsForHash()
				.get(this.operations.getStore().keys(info.queue()).recurring(info.name()), "last");
			views.add(new RecurringJobView(info, (last instanceof String millis && !millis.isEmpty())
					? Instant.ofEpochMilli(Long.parseLong(millis)) : null));
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
		SortedSet<String> queues = new TreeSet<>();
		for (JobDefinition job : this.jobs.all()) {
			if (job.payloadType() != null) {
				queues.add(job.queue());
			}
		}
		return queues;
	}

	/**
	 * Return the queues of the jobs this application handles, dispatches or configures;
	 * read from memory, never from Redis.
	 * @return their names, sorted
	 */
	public SortedSet<String> knownQueues() {
		SortedSet<String> queues = new TreeSet<>();
		for (JobDefinition job : this.jobs.all()) {
			queues.add(job.queue());
		}
		return queues;
	}

	/**
	 * Return every queue: the {@link #knownQueues() known} ones and those found in Redis.
	 * @return their names, sorted
	 */
	public SortedSet<String> queueNames() {
		SortedSet<String> queues = knownQueues();
		queues.addAll(discoveredQueues());
		return queues;
	}

	/**
	 * Return whether a queue is a {@link #knownQueues() known} one or one that Redis
	 * holds; asks Redis (one {@code EXISTS}) only when it is not known, and reports a
	 * queue created since the last scan too.
	 * @param queue the queue name
	 * @return whether it exists
	 */
	public boolean exists(String queue) {
		if (knownQueues().contains(queue)) {
			return true;
		}
		if (this.discoveryInterval.isNegative() || !isValidQueueName(queue)) {
			return false;
		}
		// not through the store, which keeps the keys of every queue it is asked about
		return Boolean.TRUE.equals(this.redis.hasKey(QueueKeys.of(this.keyPrefix, queue).model()));
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
		QueueSnapshot snapshot = this.operations.snapshot(queue);
		recent(queue).set(snapshot);
		return snapshot;
	}

	/**
	 * Return a queue's snapshot at most a second old: Redis is read at most once per
	 * queue and second however many callers ask.
	 * @param queue the queue
	 * @return the snapshot
	 */
	public QueueSnapshot recentSnapshot(String queue) {
		return recent(queue).get();
	}

	private RecentSnapshot recent(String queue) {
		return this.snapshots.computeIfAbsent(queue, RecentSnapshot::new);
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
		Assert.isTrue(offset >= 0, "offset must not be negative");
		Assert.isTrue(count >= 1 && count <= MAX_PAGE_SIZE, () -> "count must be between 1 and " + MAX_PAGE_SIZE);
		QueueKeys keys = this.operations.getStore().keys(queue);
		long end = (long) offset + count - 1;
		return switch (state) {
			case READY -> {
				List<String> ids = this.redis.opsForList().range(keys.ready(), offset, end);
				yield new JobPage(state, size(this.redis.opsForList().size(keys.ready())), offset,
						views(queue, state, scored(ids, null), false));
			}
			case DELAYED, RESERVED -> {
				String set = (state == JobStatus.State.DELAYED) ? keys.delayed() : keys.reserved();
				yield new JobPage(state, size(this.redis.opsForZSet().zCard(set)), offset,
						views(queue, state, tuples(this.redis.opsForZSet().rangeWithScores(set, offset, end)), false));
			}
			case DEAD, COMPLETED -> {
				String set = (state == JobStatus.State.DEAD) ? keys.dead() : keys.completed();
				yield new JobPage(state, size(this.redis.opsForZSet().zCard(set)), offset, views(queue, state,
						tuples(this.redis.opsForZSet().reverseRangeWithScores(set, offset, end)), false));
			}
			case NONE -> throw new IllegalArgumentException("No page of jobs is in state NONE");
		};
	}

	/**
	 * Read one job, wherever it is.
	 * @param queue the queue
	 * @param id the job id
	 * @return the job, or {@code null} when no job with that id is pending, running, dead
	 * or among the kept completed ones
	 */
	public @Nullable JobView job(String queue, String id) {
		JobStatus status = this.operations.status(queue, id);
		if (status.state() == JobStatus.State.NONE) {
			return null;
		}
		List<JobView> found = views(queue, status.state(), List.of(new Scored(id, status.at())), true);
		return found.isEmpty() ? null : found.get(0);
	}

	/**
	 * Search every queue for jobs, reading at most {@value #MAX_SEARCH_READS} entries per
	 * queue.
	 * @param by what to match: the id (or timer key), the job name or the error
	 * @param text the id or a part of it, the job name, or a part of the error such as an
	 * exception class name
	 * @param limit the most jobs to return, 1 to {@value #MAX_PAGE_SIZE}
	 * @return the jobs found
	 */
	public SearchResult search(SearchBy by, String text, int limit) {
		Assert.hasText(text, "Nothing to search for");
		Assert.isTrue(limit >= 1 && limit <= MAX_PAGE_SIZE, () -> "limit must be between 1 and " + MAX_PAGE_SIZE);
		List<JobView> found = new ArrayList<>();
		boolean complete = true;
		for (String queue : queueNames()) {
			if (by == SearchBy.ID) {
				JobView exact = job(queue, text);
				if (exact != null) {
					found.add(exact);
				}
			}
			complete &= scanHash(queue, by, text, limit, found);
			if (found.size() >= limit) {
				return new SearchResult(found.subList(0, limit), false);
			}
		}
		return new SearchResult(found, complete);
	}

	// reads the jobs hash (ids, job names) or the errors hash of a queue, bounded
	private boolean scanHash(String queue, SearchBy by, String text, int limit, List<JobView> found) {
		QueueKeys keys = this.operations.getStore().keys(queue);
		String hash = (by == SearchBy.ERROR) ? keys.errors() : keys.jobs();
		ScanOptions.ScanOptionsBuilder options = ScanOptions.scanOptions().count(READ_BATCH);
		if (by == SearchBy.ID) {
			options.match("*" + escapeGlob(text) + "*");
		}
		Predicate<String> matches = switch (by) {
			case ID -> (value) -> true;
			case JOB -> (value) -> text.equals(jobName(parse(value)));
			case ERROR -> (value) -> value.contains(text);
		};
		int read = 0;
		List<String> ids = new ArrayList<>();
		try (Cursor<Map.Entry<Object, Object>> cursor = this.redis.opsForHash().scan(hash, options.build())) {
			while (cursor.hasNext()) {
				if (++read > MAX_SEARCH_READS) {
					addFound(queue, ids, limit, found);
					return false;
				}
				Map.Entry<Object, Object> entry = cursor.next();
				String id = (String) entry.getKey();
				boolean seen = found.stream().anyMatch((job) -> job.queue().equals(queue) && job.id().equals(id));
				if (!seen && matches.test((String) entry.getValue())) {
					ids.add(id);
					if (found.size() + ids.size() >= limit) {
						break;
					}
				}
			}
		}
		addFound(queue, ids, limit, found);
		return true;
	}

	private void addFound(String queue, List<String> ids, int limit, List<JobView> found) {
		for (String id : ids) {
			JobView job = job(queue, id);
			if (job != null && found.size() < limit) {
				found.add(job);
			}
		}
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
		Assert.isTrue(limit >= 1 && limit <= MAX_PAGE_SIZE, () -> "limit must be between 1 and " + MAX_PAGE_SIZE);
		List<JobView> found = new ArrayList<>();
		for (int offset = 0; offset < MAX_SEARCH_READS; offset += READ_BATCH) {
			List<DeadJob> batch = this.operations.deadJobs(queue, offset, READ_BATCH);
			for (DeadJob dead : batch) {
				Object envelope = envelope(dead.envelope());
				if ((job == null || job.equals(jobName(envelope))) && (error == null || dead.error().contains(error))) {
					found.add(new JobView(queue, dead.id(), JobStatus.State.DEAD, dead.diedAt(), jobName(envelope),
							dead.attempts(), envelope, null, dead.error(), null));
					if (found.size() == limit) {
						return new SearchResult(found, false);
					}
				}
			}
			if (batch.size() < READ_BATCH) {
				return new SearchResult(found, true);
			}
		}
		return new SearchResult(found, false);
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
		Map<String, Object> parsed = parse(envelope);
		return (parsed != null) ? parsed : envelope;
	}

	private @Nullable Map<String, Object> parse(String envelope) {
		try {
			return this.jsonMapper.readValue(envelope, ENVELOPE);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	private static @Nullable String jobName(@Nullable Object envelope) {
		return (envelope instanceof Map<?, ?> map && map.get("job") instanceof String name) ? name : null;
	}

	// reads what the hashes hold of the given jobs: four commands for the whole page, and
	// a fifth for the stack traces when asked (for one job: a page would carry kilobytes
	// per job)
	private List<JobView> views(String queue, JobStatus.State state, List<Scored> ids, boolean withTraces) {
		if (ids.isEmpty()) {
			return List.of();
		}
		QueueKeys keys = this.operations.getStore().keys(queue);
		List<Object> fields = new ArrayList<>();
		ids.forEach((scored) -> fields.add(scored.id()));
		List<Object> envelopes = this.redis.opsForHash().multiGet(keys.jobs(), fields);
		List<Object> attempts = this.redis.opsForHash().multiGet(keys.attempts(), fields);
		List<Object> leases = this.redis.opsForHash().multiGet(keys.leases(), fields);
		List<Object> errors = this.redis.opsForHash().multiGet(keys.errors(), fields);
		List<Object> traces = withTraces ? this.redis.opsForHash().multiGet(keys.traces(), fields) : null;
		List<JobView> views = new ArrayList<>(ids.size());
		for (int i = 0; i < ids.size(); i++) {
			String stored = (String) envelopes.get(i);
			if (stored == null && state != JobStatus.State.COMPLETED) {
				// it finished or moved on while the page was read
				continue;
			}
			Object envelope = (stored != null) ? envelope(stored) : null;
			String lease = (String) leases.get(i);
			Instant at = ids.get(i).at();
			if (at == null && envelope instanceof Map<?, ?> map && map.get("availableAt") instanceof Number number) {
				at = Instant.ofEpochMilli(number.longValue());
			}
			String error = (String) errors.get(i);
			views.add(new JobView(queue, ids.get(i).id(), state, at, jobName(envelope),
					attempts(lease, (String) attempts.get(i)), envelope, lease, error,
					(traces != null) ? traceOf(error, (String) traces.get(i)) : null));
		}
		return views;
	}

	// the trace of the failure that wrote the error: a lease that ran out or a shutdown
	// writes the error without a trace, and leaves that of an earlier failure
	private static @Nullable String traceOf(@Nullable String error, @Nullable String trace) {
		if (error == null || trace == null) {
			return null;
		}
		int end = trace.length();
		for (String stop : new String[] { ": ", "\n" }) {
			int at = trace.indexOf(stop);
			if (at >= 0 && at < end) {
				end = at;
			}
		}
		return error.startsWith(trace.substring(0, end)) ? trace : null;
	}

	// a running job's attempt is in its lease token, '<sequence>:<attempt>'
	private static int attempts(@Nullable String lease, @Nullable String attempts) {
		if (lease != null && lease.indexOf(':') >= 0) {
			return Integer.parseInt(lease.substring(lease.lastIndexOf(':') + 1));
		}
		return (attempts != null) ? Integer.parseInt(attempts) : 0;
	}

	private static List<Scored> scored(@Nullable List<String> ids, @Nullable Instant at) {
		return (ids != null) ? ids.stream().map((id) -> new Scored(id, at)).toList() : List.of();
	}

	private static List<Scored> tuples(@Nullable Set<TypedTuple<String>> tuples) {
		List<Scored> scored = new ArrayList<>();
		if (tuples != null) {
			for (TypedTuple<String> tuple : tuples) {
				Double score = tuple.getScore();
				scored.add(
						new Scored(tuple.getValue(), (score != null) ? Instant.ofEpochMilli(score.longValue()) : null));
			}
		}
		return scored;
	}

	private static long size(@Nullable Long size) {
		return (size != null) ? size : 0;
	}

	private Set<String> discoveredQueues() {
		if (this.discoveryInterval.isNegative()) {
			return Set.of();
		}
		long now = System.nanoTime();
		if (!this.discoveredOnce || now - this.discoveredAt >= this.discoveryInterval.toNanos()) {
			synchronized (this) {
				if (!this.discoveredOnce || System.nanoTime() - this.discoveredAt >= this.discoveryInterval.toNanos()) {
					this.discovered = Collections.unmodifiableSet(discover());
					this.discoveredAt = System.nanoTime();
					this.discoveredOnce = true;
				}
			}
		}
		return this.discovered;
	}

	// every script records the queue's data model, so each queue Redq ever used has a
	// model key, kept even by a purge
	private Set<String> discover() {
		String prefix = escapeGlob(this.keyPrefix) + ":{";
		String suffix = "}:model";
		ScanOptions options = ScanOptions.scanOptions().match(prefix + "*" + suffix).count(1000).build();
		Set<String> queues = new TreeSet<>();
		this.redis.execute((RedisCallback<@Nullable Void>) (connection) -> {
			for (Cursor<byte[]> cursor : cursors(connection, options)) {
				try (cursor) {
					while (cursor.hasNext() && queues.size() < MAX_DISCOVERED_QUEUES) {
						String key = new String(cursor.next(), StandardCharsets.UTF_8);
						String queue = key.substring(this.keyPrefix.length() + 2, key.length() - suffix.length());
						if (isValidQueueName(queue)) {
							queues.add(queue);
						}
					}
				}
			}
			return null;
		});
		return queues;
	}

	private static Collection<Cursor<byte[]>> cursors(RedisConnection connection, ScanOptions options) {
		if (connection instanceof RedisClusterConnection cluster) {
			List<Cursor<byte[]>> cursors = new ArrayList<>();
			for (RedisClusterNode node : cluster.clusterGetNodes()) {
				if (node.isMaster()) {
					cursors.add(cluster.scan(node, options));
				}
			}
			return cursors;
		}
		return List.of(connection.keyCommands().scan(options));
	}

	private static boolean isValidQueueName(String queue) {
		try {
			QueueNames.validate(queue);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static String escapeGlob(String text) {
		return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
	}

	private record Scored(String id, @Nullable Instant at) {
	}

	/**
	 * One queue's latest snapshot; one reader at a time, so that callers arriving
	 * together share one read.
	 */
	private final class RecentSnapshot {

		private final String queue;

		private @Nullable QueueSnapshot snapshot;

		private long readAt;

		RecentSnapshot(String queue) {
			this.queue = queue;
		}

		synchronized QueueSnapshot get() {
			if (this.snapshot == null || System.nanoTime() - this.readAt > SNAPSHOT_MAX_AGE_NANOS) {
				set(JobQueueInspector.this.operations.snapshot(this.queue));
			}
			return this.snapshot;
		}

		synchronized void set(QueueSnapshot snapshot) {
			this.snapshot = snapshot;
			this.readAt = System.nanoTime();
		}

	}

	/**
	 * One queue's latest statistics, read like {@link RecentSnapshot}.
	 */
	private final class RecentStatistics {

		private final String queue;

		private @Nullable QueueStatistics statistics;

		private long readAt;

		RecentStatistics(String queue) {
			this.queue = queue;
		}

		synchronized QueueStatistics get() {
			if (this.statistics == null || System.nanoTime() - this.readAt > SNAPSHOT_MAX_AGE_NANOS) {
				this.statistics = readStatistics(this.queue);
				this.readAt = System.nanoTime();
			}
			return this.statistics;
		}

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
