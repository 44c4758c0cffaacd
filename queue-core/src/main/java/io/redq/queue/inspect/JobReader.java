package io.redq.queue.inspect;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisHashAsyncCommands;
import io.redq.queue.core.DeadJob;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.WireFormat;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.util.Assert;

/**
 * The jobs of the queues, parsed for display: pages by state, one job with its stack
 * trace, searches by id, job name or error, and filtered dead jobs, each read bounded
 * (see {@link JobQueueInspector} for the costs).
 *
 * @author Redq team
 * @since 0.1.0
 */
class JobReader {

	private static final int READ_BATCH = 200;

	private static final long SCAN_TIMEOUT_MILLIS = 10_000;

	/** The field of the stale hash that holds the total of the stale entries. */
	private static final String STALE_TOTAL = "";

	private static final TypeReference<Map<String, Object>> ENVELOPE = new TypeReference<>() {
	};

	/**
	 * The lowest score in queued of a job below the default level: a level's band is
	 * {@code (HIGHEST - level) * 2^44} (see {@code BAND} in common.lua), so the bands of
	 * the default level and those above lie below this. ZCOUNT's upper bound is
	 * inclusive, hence one less.
	 */
	private static final double BELOW_DEFAULT_LEVEL = (JobPriority.HIGHEST - JobPriority.DEFAULT + 1) * 0x1p44 - 1;

	private final RedisJobQueueOperations operations;

	private final StringRedisTemplate redis;

	private final Supplier<? extends Iterable<String>> queueNames;

	private final ReadBudget budget = new ReadBudget(JobQueueInspector.MAX_SEARCH_READS,
			JobQueueInspector.MAX_SEARCH_READS_PER_SECOND);

	JobReader(RedisJobQueueOperations operations, Supplier<? extends Iterable<String>> queueNames) {
		this.operations = operations;
		this.redis = operations.getStore().getTemplate();
		this.queueNames = queueNames;
	}

	JobPage jobs(String queue, JobStatus.State state, int offset, int count) {
		Assert.isTrue(offset >= 0, "offset must not be negative");
		Assert.isTrue(count >= 1 && count <= JobQueueInspector.MAX_PAGE_SIZE,
				() -> "count must be between 1 and " + JobQueueInspector.MAX_PAGE_SIZE);
		QueueKeys keys = this.operations.getStore().keys(queue);
		long end = (long) offset + count - 1;
		return switch (state) {
			case READY -> {
				List<String> ids = liveIds(queue, keys, readyIds(keys, offset, end));
				Object stale = this.redis.opsForHash().get(keys.stale(), STALE_TOTAL);
				long total = size(this.redis.opsForZSet().zCard(keys.queued()))
						+ size(this.redis.opsForList().size(keys.ready()))
						- ((stale != null) ? Long.parseLong((String) stale) : 0);
				yield new JobPage(state, total, offset, views(queue, state, scored(ids, null), false));
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
	 * Return the ids of the ready jobs at positions {@code from} to {@code to} of the
	 * listing by level: the members of queued down to the default level (its groups),
	 * then the ready list (the default level without a group), then the lower levels.
	 */
	private List<String> readyIds(QueueKeys keys, long from, long to) {
		long above = size(this.redis.opsForZSet().count(keys.queued(), Double.NEGATIVE_INFINITY, BELOW_DEFAULT_LEVEL));
		long ready = size(this.redis.opsForList().size(keys.ready()));
		List<String> ids = new ArrayList<>();
		if (from < above) {
			ids.addAll(this.redis.opsForZSet().range(keys.queued(), from, Math.min(to, above - 1)));
		}
		if (to >= above && from < above + ready) {
			ids.addAll(this.redis.opsForList().range(keys.ready(), Math.max(0, from - above), to - above));
		}
		if (to >= above + ready) {
			ids.addAll(this.redis.opsForZSet()
				.range(keys.queued(), above + Math.max(0, from - above - ready), to - ready));
		}
		return ids;
	}

	/**
	 * Return the ids of the entries of the ready lines that stand for a ready job: an id
	 * counted stale (see {@code unready} in common.lua) has entries left by the job's
	 * earlier places in line, which stand for nothing; it is shown once, and only when
	 * its job is ready. One {@code HMGET} of the stale counts, and a status call per such
	 * id.
	 */
	private List<String> liveIds(String queue, QueueKeys keys, List<String> ids) {
		if (ids.isEmpty()) {
			return ids;
		}
		List<Object> staleCounts = this.redis.opsForHash().multiGet(keys.stale(), new ArrayList<>(ids));
		List<String> live = new ArrayList<>(ids.size());
		Set<String> shown = new HashSet<>();
		for (int i = 0; i < ids.size(); i++) {
			String id = ids.get(i);
			if (staleCounts.get(i) == null
					|| (shown.add(id) && this.operations.status(queue, id).state() == JobStatus.State.READY)) {
				live.add(id);
			}
		}
		return live;
	}

	@Nullable JobView job(String queue, String id) {
		return job(queue, id, true);
	}

	private @Nullable JobView job(String queue, String id, boolean withTrace) {
		JobStatus status = this.operations.status(queue, id);
		if (status.state() == JobStatus.State.NONE) {
			return null;
		}
		List<JobView> found = views(queue, status.state(), List.of(new Scored(id, status.at())), withTrace);
		return found.isEmpty() ? null : found.get(0);
	}

	SearchResult search(SearchBy by, String text, int limit) {
		Assert.hasText(text, "Nothing to search for");
		Assert.isTrue(limit >= 1 && limit <= JobQueueInspector.MAX_PAGE_SIZE,
				() -> "limit must be between 1 and " + JobQueueInspector.MAX_PAGE_SIZE);
		ReadBudget.Request reads = this.budget.request();
		List<JobView> found = new ArrayList<>();
		for (String queue : this.queueNames.get()) {
			if (by == SearchBy.ID) {
				if (!reads.take(1)) {
					return new SearchResult(found, false);
				}
				JobView exact = job(queue, text, false);
				if (exact != null) {
					found.add(exact);
				}
			}
			if (!scanHash(queue, by, text, limit, found, reads)) {
				return new SearchResult(found, false);
			}
			if (found.size() >= limit) {
				return new SearchResult(found.subList(0, limit), false);
			}
		}
		return new SearchResult(found, true);
	}

	/**
	 * Read the jobs hash (ids, job names) or the errors hash of a queue for matches, one
	 * {@code HSCAN} call of {@value #READ_BATCH} entries at a time while the reads allow:
	 * each call is counted for the entries it reads, not for those it returns, since a
	 * match by id returns only the ids that match.
	 * @return whether the whole hash was read
	 */
	private boolean scanHash(String queue, SearchBy by, String text, int limit, List<JobView> found,
			ReadBudget.Request reads) {
		QueueKeys keys = this.operations.getStore().keys(queue);
		byte[] hash = ((by == SearchBy.ERROR) ? keys.errors() : keys.jobs()).getBytes(StandardCharsets.UTF_8);
		ScanArgs args = ScanArgs.Builder.limit(READ_BATCH);
		if (by == SearchBy.ID) {
			args.match("*" + QueueDiscovery.escapeGlob(text) + "*");
		}
		Predicate<String> matches = switch (by) {
			case ID -> (value) -> true;
			case JOB -> (value) -> text.equals(jobName(parse(value)));
			case ERROR -> (value) -> value.contains(text);
		};
		List<String> ids = new ArrayList<>();
		boolean whole = Boolean.TRUE.equals(this.redis.execute((RedisCallback<Boolean>) (connection) -> {
			RedisHashAsyncCommands<byte[], byte[]> commands = hashCommands(connection);
			ScanCursor cursor = ScanCursor.INITIAL;
			do {
				if (!reads.take(READ_BATCH)) {
					return false;
				}
				MapScanCursor<byte[], byte[]> batch = LettuceFutures.awaitOrCancel(commands.hscan(hash, cursor, args),
						SCAN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
				for (Map.Entry<byte[], byte[]> entry : batch.getMap().entrySet()) {
					String id = new String(entry.getKey(), StandardCharsets.UTF_8);
					boolean seen = found.stream().anyMatch((job) -> job.queue().equals(queue) && job.id().equals(id));
					if (!seen && !ids.contains(id)
							&& matches.test(new String(entry.getValue(), StandardCharsets.UTF_8))) {
						ids.add(id);
						if (found.size() + ids.size() >= limit) {
							return true;
						}
					}
				}
				cursor = batch;
			}
			while (!cursor.isFinished());
			return true;
		}));
		for (String id : ids) {
			JobView job = job(queue, id, false);
			if (job != null && found.size() < limit) {
				found.add(job);
			}
		}
		return whole;
	}

	// HSCAN one call at a time, which the template's cursor does not do: it goes on by
	// itself over calls that return nothing
	@SuppressWarnings("unchecked")
	private static RedisHashAsyncCommands<byte[], byte[]> hashCommands(RedisConnection connection) {
		Object commands = connection.getNativeConnection();
		if (commands instanceof RedisHashAsyncCommands<?, ?> hashCommands) {
			return (RedisHashAsyncCommands<byte[], byte[]>) hashCommands;
		}
		throw new IllegalStateException("Searching the queues needs Lettuce, not " + commands.getClass());
	}

	SearchResult deadJobs(String queue, @Nullable String job, @Nullable String error, int limit,
			@Nullable Instant diedBy) {
		Assert.isTrue(limit >= 1 && limit <= JobQueueInspector.MAX_PAGE_SIZE,
				() -> "limit must be between 1 and " + JobQueueInspector.MAX_PAGE_SIZE);
		ReadBudget.Request reads = this.budget.request();
		// the jobs that died after the cutoff come first, newest first: skipped at once
		long skipped = (diedBy != null) ? size(this.redis.opsForZSet()
			.count(this.operations.getStore().keys(queue).dead(), diedBy.toEpochMilli() + 1, Double.POSITIVE_INFINITY))
				: 0;
		List<JobView> found = new ArrayList<>();
		for (long offset = skipped; reads.take(READ_BATCH); offset += READ_BATCH) {
			List<DeadJob> batch = this.operations.deadJobs(queue, (int) offset, READ_BATCH);
			for (DeadJob dead : batch) {
				Object envelope = envelope(dead.envelope());
				if ((diedBy == null || !dead.diedAt().isAfter(diedBy)) && (job == null || job.equals(jobName(envelope)))
						&& (error == null || dead.error().contains(error))) {
					found.add(new JobView(queue, dead.id(), JobStatus.State.DEAD, dead.diedAt(), jobName(envelope),
							dead.attempts(), envelope, null, dead.error(), null, null));
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

	@Nullable Instant latestDeath(String queue) {
		Set<TypedTuple<String>> latest = this.redis.opsForZSet()
			.reverseRangeWithScores(this.operations.getStore().keys(queue).dead(), 0, 0);
		List<Scored> scored = tuples(latest);
		return scored.isEmpty() ? null : scored.get(0).at();
	}

	Object envelope(String envelope) {
		Map<String, Object> parsed = parse(envelope);
		return (parsed != null) ? parsed : envelope;
	}

	private @Nullable Map<String, Object> parse(String envelope) {
		try {
			return WireFormat.jsonMapper().readValue(envelope, ENVELOPE);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	private static @Nullable String jobName(@Nullable Object envelope) {
		return (envelope instanceof Map<?, ?> map && map.get("job") instanceof String name) ? name : null;
	}

	// reads what the hashes hold of the given jobs: four commands for the whole page, and
	// for one job (a page would carry kilobytes per job) a fifth for the stack traces and
	// two for the progress
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
			// a delayed job without a due time is parked behind its limits: it has none
			if (at == null && state != JobStatus.State.DELAYED && envelope instanceof Map<?, ?> map
					&& map.get("availableAt") instanceof Number number) {
				at = Instant.ofEpochMilli(number.longValue());
			}
			String error = (String) errors.get(i);
			views.add(new JobView(queue, ids.get(i).id(), state, at, jobName(envelope),
					attempts(lease, (String) attempts.get(i)), envelope, lease, error,
					(traces != null) ? traceOf(error, (String) traces.get(i)) : null,
					withTraces ? this.operations.progress(queue, ids.get(i).id()) : null));
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
				scored.add(new Scored(tuple.getValue(),
						(score != null && !score.isInfinite()) ? Instant.ofEpochMilli(score.longValue()) : null));
			}
		}
		return scored;
	}

	private static long size(@Nullable Long size) {
		return (size != null) ? size : 0;
	}

	private record Scored(String id, @Nullable Instant at) {
	}

}
