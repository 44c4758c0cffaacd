package io.redq.queue.inspect;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.redq.queue.core.DeadJob;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.QueueReader.Entry;
import io.redq.queue.redis.QueueReader.JobFields;
import io.redq.queue.redis.QueueReader.JobHash;
import io.redq.queue.redis.QueueReader.ScoredSet;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.WireFormat;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;

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

	/**
	 * The order of the ready jobs of a sharded queue: highest level first, then the
	 * longest ready (each shard lists its own by level, then by group and line).
	 */
	private static final Comparator<JobView> READY_ORDER = Comparator.comparingInt(JobReader::priority)
		.reversed()
		.thenComparing(JobView::at, Comparator.nullsLast(Comparator.naturalOrder()));

	private static final TypeReference<Map<String, Object>> ENVELOPE = new TypeReference<>() {
	};

	private final RedisJobQueueOperations operations;

	private final QueueReader queues;

	private final Supplier<? extends Iterable<String>> queueNames;

	private final ReadBudget budget = new ReadBudget(JobQueueInspector.MAX_SEARCH_READS,
			JobQueueInspector.MAX_SEARCH_READS_PER_SECOND);

	JobReader(RedisJobQueueOperations operations, QueueReader queues, Supplier<? extends Iterable<String>> queueNames) {
		this.operations = operations;
		this.queues = queues;
		this.queueNames = queueNames;
	}

	JobPage jobs(String queue, JobStatus.State state, int offset, int count) {
		Assert.isTrue(offset >= 0, "offset must not be negative");
		Assert.isTrue(count >= 1 && count <= JobQueueInspector.MAX_PAGE_SIZE,
				() -> "count must be between 1 and " + JobQueueInspector.MAX_PAGE_SIZE);
		ScoredSet set = switch (state) {
			case READY -> null;
			case DELAYED -> ScoredSet.DELAYED;
			case RESERVED -> ScoredSet.RESERVED;
			case DEAD -> ScoredSet.DEAD;
			case COMPLETED -> ScoredSet.COMPLETED;
			case NONE -> throw new IllegalArgumentException("No page of jobs is in state NONE");
		};
		List<String> shards = this.queues.shards(queue);
		// the page of a sharded queue is among the first offset + count of each shard
		long from = (shards.size() == 1) ? offset : 0;
		long end = (long) offset + count - 1;
		long total = 0;
		List<List<JobView>> views = new ArrayList<>();
		List<List<ShardEntry>> entries = new ArrayList<>();
		for (int index = 0; index < shards.size(); index++) {
			String shard = shards.get(index);
			int of = index;
			if (set == null) {
				total += this.queues.readyCount(shard);
				List<String> ids = liveIds(queue, shard, this.queues.readyIds(shard, from, end));
				views.add(views(queue, shard, state, entries(ids, null), false));
			}
			else {
				total += this.queues.count(shard, set);
				entries.add(this.queues.entries(shard, set, from, end)
					.stream()
					.map((entry) -> new ShardEntry(of, entry))
					.toList());
			}
		}
		if (set == null) {
			return new JobPage(state, total, offset, merge(views, READY_ORDER, offset - from, count));
		}
		Comparator<Instant> time = set.latestFirst() ? Comparator.reverseOrder() : Comparator.naturalOrder();
		Comparator<ShardEntry> order = Comparator.comparing((entry) -> entry.entry().at(), Comparator.nullsLast(time));
		List<ShardEntry> page = merge(entries, order, offset - from, count);
		// a job lives in one shard: its id names it in the page
		Map<String, JobView> read = new HashMap<>();
		for (int shard = 0; shard < shards.size(); shard++) {
			int of = shard;
			List<Entry> ofShard = page.stream().filter((entry) -> entry.shard() == of).map(ShardEntry::entry).toList();
			views(queue, shards.get(shard), state, ofShard, false).forEach((view) -> read.put(view.id(), view));
		}
		return new JobPage(state, total, offset,
				page.stream().map((entry) -> read.get(entry.entry().id())).filter(Objects::nonNull).toList());
	}

	/**
	 * Return a page of the merge of lists each in the given order, keeping each list's
	 * order: the head that comes first in the order is taken first.
	 */
	private static <T> List<T> merge(List<List<T>> lists, Comparator<? super T> order, long skip, int count) {
		int[] heads = new int[lists.size()];
		List<T> merged = new ArrayList<>(count);
		for (long taken = 0; merged.size() < count; taken++) {
			int first = -1;
			for (int list = 0; list < lists.size(); list++) {
				if (heads[list] < lists.get(list).size() && (first < 0
						|| order.compare(lists.get(list).get(heads[list]), lists.get(first).get(heads[first])) < 0)) {
					first = list;
				}
			}
			if (first < 0) {
				break;
			}
			T head = lists.get(first).get(heads[first]++);
			if (taken >= skip) {
				merged.add(head);
			}
		}
		return merged;
	}

	/**
	 * Return the ids of the entries of the ready lines that stand for a ready job: an id
	 * counted stale (see {@code unready} in common.lua) has entries left by the job's
	 * earlier places in line, which stand for nothing; it is shown once, and only when
	 * its job is ready. One {@code HMGET} of the stale counts, and a status call per such
	 * id.
	 */
	private List<String> liveIds(String queue, String shard, List<String> ids) {
		Set<String> stale = this.queues.countedStale(shard, ids);
		List<String> live = new ArrayList<>(ids.size());
		Set<String> shown = new HashSet<>();
		for (int i = 0; i < ids.size(); i++) {
			String id = ids.get(i);
			if (!stale.contains(id)
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
		List<JobView> found = views(queue, this.queues.shardHolding(queue, id), status.state(),
				List.of(new Entry(id, status.at())), withTrace);
		return found.isEmpty() ? null : found.get(0);
	}

	@Nullable ResultView result(String queue, String id, int maxBytes) {
		QueueReader.ResultStart result = this.queues.result(queue, id, maxBytes);
		return (result != null) ? new ResultView(result.text(), result.size(), result.size() > maxBytes) : null;
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
	 * Read the jobs hash (ids, job names) or the errors hash of each shard of a queue for
	 * matches, one {@code HSCAN} call of {@value #READ_BATCH} entries at a time while the
	 * reads allow: each call is counted for the entries it reads, not for those it
	 * returns, since a match by id returns only the ids that match.
	 * @return whether the whole hash was read
	 */
	private boolean scanHash(String queue, SearchBy by, String text, int limit, List<JobView> found,
			ReadBudget.Request reads) {
		Predicate<String> matches = switch (by) {
			case ID -> (value) -> true;
			case JOB -> (value) -> text.equals(jobName(parse(value)));
			case ERROR -> (value) -> value.contains(text);
		};
		List<String> ids = new ArrayList<>();
		boolean whole = true;
		for (String shard : this.queues.shards(queue)) {
			whole = this.queues.scan(shard, (by == SearchBy.ERROR) ? JobHash.ERRORS : JobHash.JOBS,
					(by == SearchBy.ID) ? text : null, READ_BATCH, () -> reads.take(READ_BATCH), (id, value) -> {
						boolean seen = found.stream()
							.anyMatch((job) -> job.queue().equals(queue) && job.id().equals(id));
						if (!seen && !ids.contains(id) && matches.test(value)) {
							ids.add(id);
							return found.size() + ids.size() < limit;
						}
						return true;
					});
			if (!whole || found.size() + ids.size() >= limit) {
				break;
			}
		}
		for (String id : ids) {
			JobView job = job(queue, id, false);
			if (job != null && found.size() < limit) {
				found.add(job);
			}
		}
		return whole;
	}

	SearchResult deadJobs(String queue, @Nullable String job, @Nullable String error, int limit,
			@Nullable Instant diedBy) {
		Assert.isTrue(limit >= 1 && limit <= JobQueueInspector.MAX_PAGE_SIZE,
				() -> "limit must be between 1 and " + JobQueueInspector.MAX_PAGE_SIZE);
		ReadBudget.Request reads = this.budget.request();
		// the jobs that died after the cutoff come first, newest first: skipped at once
		long skipped = 0;
		if (diedBy != null) {
			for (String shard : this.queues.shards(queue)) {
				skipped += this.queues.deadAfter(shard, diedBy);
			}
		}
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
		Instant latest = null;
		for (String shard : this.queues.shards(queue)) {
			for (Entry entry : this.queues.entries(shard, ScoredSet.DEAD, 0, 0)) {
				if (latest == null || (entry.at() != null && entry.at().isAfter(latest))) {
					latest = entry.at();
				}
			}
		}
		return latest;
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
	private List<JobView> views(String queue, String shard, JobStatus.State state, List<Entry> ids,
			boolean withTraces) {
		if (ids.isEmpty()) {
			return List.of();
		}
		JobFields fields = this.queues.fields(shard, ids.stream().map(Entry::id).toList(), withTraces);
		List<@Nullable String> traces = fields.traces();
		List<JobView> views = new ArrayList<>(ids.size());
		for (int i = 0; i < ids.size(); i++) {
			String stored = fields.envelopes().get(i);
			if (stored == null && state != JobStatus.State.COMPLETED) {
				// it finished or moved on while the page was read
				continue;
			}
			Object envelope = (stored != null) ? envelope(stored) : null;
			String lease = fields.leases().get(i);
			Instant at = ids.get(i).at();
			// a delayed job without a due time is parked behind its limits: it has none
			if (at == null && state != JobStatus.State.DELAYED && envelope instanceof Map<?, ?> map
					&& map.get("availableAt") instanceof Number number) {
				at = Instant.ofEpochMilli(number.longValue());
			}
			String error = fields.errors().get(i);
			views.add(new JobView(queue, ids.get(i).id(), state, at, jobName(envelope),
					attempts(lease, fields.attempts().get(i)), envelope, lease, error,
					(traces != null) ? traceOf(error, traces.get(i)) : null,
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

	private static List<Entry> entries(List<String> ids, @Nullable Instant at) {
		return ids.stream().map((id) -> new Entry(id, at)).toList();
	}

	private static int priority(JobView view) {
		return (view.envelope() instanceof Map<?, ?> map && map.get("priority") instanceof Number level)
				? level.intValue() : JobPriority.DEFAULT;
	}

	/**
	 * An entry of a sorted set of one of a queue's shards.
	 *
	 * @param shard the shard's index
	 * @param entry the entry
	 */
	private record ShardEntry(int shard, Entry entry) {

	}

}
