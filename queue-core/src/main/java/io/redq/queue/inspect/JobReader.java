package io.redq.queue.inspect;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.redq.queue.core.DeadJob;
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
		long end = (long) offset + count - 1;
		return switch (state) {
			case READY -> {
				List<String> ids = liveIds(queue, this.queues.readyIds(queue, offset, end));
				yield new JobPage(state, this.queues.readyCount(queue), offset,
						views(queue, state, entries(ids, null), false));
			}
			case DELAYED -> page(queue, state, ScoredSet.DELAYED, offset, end);
			case RESERVED -> page(queue, state, ScoredSet.RESERVED, offset, end);
			case DEAD -> page(queue, state, ScoredSet.DEAD, offset, end);
			case COMPLETED -> page(queue, state, ScoredSet.COMPLETED, offset, end);
			case NONE -> throw new IllegalArgumentException("No page of jobs is in state NONE");
		};
	}

	private JobPage page(String queue, JobStatus.State state, ScoredSet set, int offset, long end) {
		return new JobPage(state, this.queues.count(queue, set), offset,
				views(queue, state, this.queues.entries(queue, set, offset, end), false));
	}

	/**
	 * Return the ids of the entries of the ready lines that stand for a ready job: an id
	 * counted stale (see {@code unready} in common.lua) has entries left by the job's
	 * earlier places in line, which stand for nothing; it is shown once, and only when
	 * its job is ready. One {@code HMGET} of the stale counts, and a status call per such
	 * id.
	 */
	private List<String> liveIds(String queue, List<String> ids) {
		Set<String> stale = this.queues.countedStale(queue, ids);
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
		List<JobView> found = views(queue, status.state(), List.of(new Entry(id, status.at())), withTrace);
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
	 * Read the jobs hash (ids, job names) or the errors hash of a queue for matches, one
	 * {@code HSCAN} call of {@value #READ_BATCH} entries at a time while the reads allow:
	 * each call is counted for the entries it reads, not for those it returns, since a
	 * match by id returns only the ids that match.
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
		boolean whole = this.queues.scan(queue, (by == SearchBy.ERROR) ? JobHash.ERRORS : JobHash.JOBS,
				(by == SearchBy.ID) ? text : null, READ_BATCH, () -> reads.take(READ_BATCH), (id, value) -> {
					boolean seen = found.stream().anyMatch((job) -> job.queue().equals(queue) && job.id().equals(id));
					if (!seen && !ids.contains(id) && matches.test(value)) {
						ids.add(id);
						return found.size() + ids.size() < limit;
					}
					return true;
				});
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
		long skipped = (diedBy != null) ? this.queues.deadAfter(queue, diedBy) : 0;
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
		List<Entry> latest = this.queues.entries(queue, ScoredSet.DEAD, 0, 0);
		return latest.isEmpty() ? null : latest.get(0).at();
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
	private List<JobView> views(String queue, JobStatus.State state, List<Entry> ids, boolean withTraces) {
		if (ids.isEmpty()) {
			return List.of();
		}
		JobFields fields = this.queues.fields(queue, ids.stream().map(Entry::id).toList(), withTraces);
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

}
