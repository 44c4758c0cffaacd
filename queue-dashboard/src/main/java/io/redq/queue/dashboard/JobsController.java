package io.redq.queue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.redq.queue.core.Due;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.JobPage;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.ResultView;
import io.redq.queue.inspect.SearchResult;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static io.redq.queue.dashboard.DashboardJson.blankToNull;
import static io.redq.queue.dashboard.DashboardJson.millis;

/**
 * The dashboard's view of jobs: a queue's jobs by state in pages, one job, the dead jobs
 * filtered by name or error, the search across queues, and the changes of jobs (retry,
 * delete, trigger, cancel, reschedule one; retry or delete dead jobs in bulk). Payloads
 * are shown as {@code redq.dashboard.show-payloads} says.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api")
public class JobsController {

	/** The most dead jobs one bulk retry or delete changes; the page repeats it. */
	public static final int BULK_BATCH_SIZE = 100;

	private static final String HIDDEN = "******";

	private final JobQueueInspector inspector;

	private final JobQueueOperations operations;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads and changes the jobs through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public JobsController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.operations = inspector.getOperations();
		this.guard = guard;
	}

	@GetMapping("/queues/{queue}/jobs")
	PageJson jobs(@PathVariable String queue, @RequestParam String state, @RequestParam(defaultValue = "0") int offset,
			@RequestParam(defaultValue = "20") int count, HttpServletRequest request) {
		JobPage page = this.inspector
			.read(() -> this.inspector.jobs(this.guard.requireQueue(queue), state(state), offset, count));
		return new PageJson(page.state().name(), page.total(), page.offset(), jobs(page.jobs(), request));
	}

	@GetMapping("/queues/{queue}/job")
	ResponseEntity<JobJson> job(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		boolean payloads = this.guard.showsPayloads(request);
		JobJson job = this.inspector.read(() -> {
			JobView found = this.inspector.job(this.guard.requireQueue(queue), QueueNames.validateId(id));
			if (found == null) {
				return null;
			}
			ResultView result = (found.state() == JobStatus.State.COMPLETED) ? this.inspector.result(queue, id) : null;
			return JobJson.of(found, payloads).withResult(result, payloads);
		});
		return (job != null) ? ResponseEntity.ok(job) : ResponseEntity.notFound().build();
	}

	@GetMapping("/queues/{queue}/dead")
	SearchJson deadJobs(@PathVariable String queue, @RequestParam(required = false) @Nullable String job,
			@RequestParam(required = false) @Nullable String error, @RequestParam(defaultValue = "20") int limit,
			HttpServletRequest request) {
		return found(this.inspector.read(() -> this.inspector.deadJobs(this.guard.requireQueue(queue), blankToNull(job),
				blankToNull(error), limit)), request);
	}

	@GetMapping("/search")
	SearchJson search(@RequestParam String by, @RequestParam String text, @RequestParam(defaultValue = "20") int limit,
			HttpServletRequest request) {
		SearchBy searchBy;
		try {
			searchBy = SearchBy.valueOf(by.toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Unknown search 'by=" + by + "': use id, job or error");
		}
		if (searchBy == SearchBy.ID) {
			QueueNames.validateId(text);
		}
		return found(this.inspector.read(() -> this.inspector.search(searchBy, text, limit)), request);
	}

	@PostMapping("/queues/{queue}/job/{action}")
	DashboardJson.ChangeJson changeJob(@PathVariable String queue, @PathVariable String action, @RequestParam String id,
			@RequestParam(required = false) @Nullable Long delaySeconds, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		this.guard.requireQueue(queue);
		QueueNames.validateId(id);
		boolean changed = switch (action) {
			case "retry", "delete" -> changeDead(queue, action, List.of(id)) == 1;
			case "trigger" -> this.operations.trigger(queue, id);
			case "cancel" -> this.operations.cancel(queue, id);
			case "reschedule" -> {
				if (delaySeconds == null || delaySeconds < 0) {
					throw new IllegalArgumentException("reschedule needs delaySeconds, 0 or more");
				}
				yield this.operations.reschedule(queue, id, Due.after(Duration.ofSeconds(delaySeconds)));
			}
			default -> throw new IllegalArgumentException(
					"Unknown action '" + action + "': use retry, delete, trigger, cancel or reschedule");
		};
		this.guard.log(request, action, queue, id, changed ? 1 : 0);
		return new DashboardJson.ChangeJson(action, changed ? 1 : 0, false, null);
	}

	@PostMapping("/queues/{queue}/dead/{action}")
	DashboardJson.ChangeJson changeDeadJobs(@PathVariable String queue, @PathVariable String action,
			@RequestParam(required = false) @Nullable List<String> ids,
			@RequestParam(required = false) @Nullable String job,
			@RequestParam(required = false) @Nullable String error,
			@RequestParam(required = false) @Nullable String confirm,
			@RequestParam(required = false) @Nullable Long diedBy, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		this.guard.requireQueue(queue);
		if (!action.equals("retry") && !action.equals("delete")) {
			throw new IllegalArgumentException("Unknown action '" + action + "': use retry or delete");
		}
		List<String> chosen;
		boolean more = false;
		Instant cutoff = null;
		if (ids != null && !ids.isEmpty()) {
			if (ids.size() > BULK_BATCH_SIZE) {
				throw new IllegalArgumentException(
						ids.size() + " ids given, at most " + BULK_BATCH_SIZE + " are taken at once");
			}
			ids.forEach(QueueNames::validateId);
			chosen = ids;
		}
		else {
			// every dead job that matches, one bounded batch per request; the batches
			// after the first pass the cutoff it answered, so that a job retried that
			// dies again is not taken again
			DashboardGuard.requireConfirmation(queue, confirm, action + " every matching dead job of");
			cutoff = (diedBy != null) ? Instant.ofEpochMilli(diedBy) : this.inspector.latestDeath(queue);
			if (cutoff == null) {
				return new DashboardJson.ChangeJson(action, 0, false, null);
			}
			SearchResult matching = this.inspector.deadJobs(queue, blankToNull(job), blankToNull(error),
					BULK_BATCH_SIZE, cutoff);
			chosen = matching.jobs().stream().map(JobView::id).toList();
			more = !matching.complete();
		}
		if (chosen.isEmpty()) {
			return new DashboardJson.ChangeJson(action, 0, more, millis(cutoff));
		}
		long changed = changeDead(queue, action, chosen);
		this.guard.log(request, action, queue, (ids != null && !ids.isEmpty()) ? String.join(",", ids)
				: "dead jobs matching job=" + ((job != null) ? job : "") + " error=" + ((error != null) ? error : ""),
				changed);
		return new DashboardJson.ChangeJson(action, changed, more, millis(cutoff));
	}

	private long changeDead(String queue, String action, List<String> ids) {
		return action.equals("retry") ? this.operations.retryDead(queue, ids) : this.operations.deleteDead(queue, ids);
	}

	private List<JobJson> jobs(List<JobView> jobs, HttpServletRequest request) {
		boolean payloads = this.guard.showsPayloads(request);
		return jobs.stream().map((job) -> JobJson.of(job, payloads)).toList();
	}

	private SearchJson found(SearchResult result, HttpServletRequest request) {
		return new SearchJson(jobs(result.jobs(), request), result.complete());
	}

	private static JobStatus.State state(String state) {
		try {
			JobStatus.State parsed = JobStatus.State.valueOf(state.toUpperCase(Locale.ROOT));
			if (parsed != JobStatus.State.NONE) {
				return parsed;
			}
		}
		catch (IllegalArgumentException ex) {
			// said below
		}
		throw new IllegalArgumentException(
				"Unknown state '" + state + "': use ready, delayed, reserved, dead or completed");
	}

	/**
	 * A job as the page shows it; times in epoch milliseconds. One completed job comes
	 * with its stored result, if any, hidden as the payloads are.
	 */
	record JobJson(String queue, String id, String state, @Nullable Long at, @Nullable String job, int attempts,
			@Nullable Object envelope, @Nullable String lease, @Nullable String error, @Nullable String stackTrace,
			@Nullable JobProgress progress, @Nullable ResultView result) {

		static JobJson of(JobView job, boolean withPayload) {
			// a cursor is the job's data, hidden like its payload
			JobProgress progress = job.progress();
			return new JobJson(job.queue(), job.id(), job.state().name(), millis(job.at()), job.job(), job.attempts(),
					withPayload ? job.envelope() : hidden(job.envelope()), job.lease(), job.error(), job.stackTrace(),
					(progress != null && !withPayload && progress.cursor() != null)
							? new JobProgress(progress.fraction(), progress.message(), HIDDEN) : progress,
					null);
		}

		JobJson withResult(@Nullable ResultView result, boolean withPayload) {
			ResultView shown = (result == null || withPayload) ? result
					: new ResultView(HIDDEN, result.size(), result.truncated());
			return new JobJson(this.queue, this.id, this.state, this.at, this.job, this.attempts, this.envelope,
					this.lease, this.error, this.stackTrace, this.progress, shown);
		}

		// the envelope with its payload and header values hidden, as Boot hides the
		// values
		// of the env endpoint; an envelope that is not JSON is hidden whole
		private static @Nullable Object hidden(@Nullable Object envelope) {
			if (!(envelope instanceof Map<?, ?> map)) {
				return (envelope != null) ? HIDDEN : null;
			}
			Map<Object, @Nullable Object> hidden = new LinkedHashMap<>(map);
			if (hidden.containsKey("payload")) {
				hidden.put("payload", HIDDEN);
			}
			if (map.get("headers") instanceof Map<?, ?> headers) {
				Map<Object, String> hiddenHeaders = new LinkedHashMap<>();
				headers.keySet().forEach((name) -> hiddenHeaders.put(name, HIDDEN));
				hidden.put("headers", hiddenHeaders);
			}
			return hidden;
		}

	}

	/**
	 * A page of jobs.
	 */
	record PageJson(String state, long total, int offset, List<JobJson> jobs) {
	}

	/**
	 * Jobs found, and whether every candidate was looked at.
	 */
	record SearchJson(List<JobJson> jobs, boolean complete) {
	}

}
