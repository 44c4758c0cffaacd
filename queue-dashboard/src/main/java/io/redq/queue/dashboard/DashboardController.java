package io.redq.queue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.redq.queue.core.Due;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.InspectedQueue;
import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobPage;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.QueueStatistics;
import io.redq.queue.inspect.RecurringJobView;
import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.inspect.SearchResult;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.util.WebUtils;

/**
 * The dashboard's page and the JSON it reads and posts, below
 * {@code redq.dashboard.path}: a thin adapter over the {@link JobQueueInspector}. Reads
 * are {@code GET}s, each answered within the inspector's read timeout as a whole. Every
 * change is a {@code POST} (refused while the dashboard is read-only), so that no link or
 * image can change anything, and so that Spring Security's CSRF protection covers each of
 * them; and, whatever the security setup, a change needs what a form or script of another
 * site cannot send: the {@value #CHANGE_HEADER} header and an {@code Origin} header of
 * this server.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}")
public class DashboardController {

	/** The most dead jobs one bulk retry or delete changes; the page repeats it. */
	public static final int BULK_BATCH_SIZE = 100;

	/**
	 * The header every change must carry: a form cannot send it, and a script of another
	 * site can only after a CORS preflight, which the dashboard never allows.
	 */
	public static final String CHANGE_HEADER = "X-Redq-Dashboard";

	private static final String HIDDEN = "******";

	private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

	private static final boolean SECURITY_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", DashboardController.class.getClassLoader());

	private final JobQueueInspector inspector;

	private final JobQueueOperations operations;

	private final ActionLog actions;

	private final DashboardProperties properties;

	private final @Nullable String readOnlyBecause;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads and changes the queues through
	 * @param actions the log of the changes made through the dashboard
	 * @param properties the dashboard's configuration
	 * @param changesPermitted whether {@code management.endpoints.access.max-permitted}
	 * allows changes: when not, the dashboard is read-only whatever its configuration
	 * says
	 */
	public DashboardController(JobQueueInspector inspector, ActionLog actions, DashboardProperties properties,
			boolean changesPermitted) {
		this.inspector = inspector;
		this.operations = inspector.getOperations();
		this.actions = actions;
		this.properties = properties;
		this.readOnlyBecause = !changesPermitted
				? "management.endpoints.access.max-permitted allows no changes through any endpoint, the dashboard's "
						+ "included"
				: properties.isReadOnly() ? "set redq.dashboard.read-only=false to allow changes" : null;
	}

	@GetMapping("")
	ResponseEntity<Void> redirectToPage(HttpServletRequest request) {
		// the page's relative links need the trailing slash
		return ResponseEntity.status(HttpStatus.FOUND)
			.header(HttpHeaders.LOCATION, request.getRequestURI() + "/")
			.build();
	}

	@GetMapping("/")
	ResponseEntity<Resource> page() {
		return ResponseEntity.ok()
			.contentType(MediaType.TEXT_HTML)
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header(HttpHeaders.CACHE_CONTROL, "no-store")
			.body(new ClassPathResource("META-INF/redq-dashboard/index.html"));
	}

	@GetMapping("/api/session")
	Map<String, @Nullable Object> session(HttpServletRequest request) {
		Map<String, @Nullable Object> session = new LinkedHashMap<>();
		session.put("readOnly", this.readOnlyBecause != null);
		session.put("maxPageSize", JobQueueInspector.MAX_PAGE_SIZE);
		session.put("csrf", SECURITY_PRESENT ? Csrf.of(request) : null);
		return session;
	}

	@GetMapping("/api/queues")
	List<QueueJson> queues() {
		return this.inspector.read(() -> {
			Map<String, Integer> consumers = consumers();
			return this.inspector.queues()
				.stream()
				.map((queue) -> QueueJson.of(queue, consumers.getOrDefault(queue.name(), 0),
						LastHourJson.of(this.inspector.minutes(queue.name()))))
				.toList();
		});
	}

	@GetMapping("/api/queues/{queue}")
	QueueJson queue(@PathVariable String queue) {
		return this.inspector.read(() -> describe(requireQueue(queue), this.inspector.recentSnapshot(queue)));
	}

	@GetMapping("/api/queues/{queue}/statistics")
	StatisticsJson statistics(@PathVariable String queue) {
		QueueStatistics statistics = this.inspector.read(() -> this.inspector.statistics(requireQueue(queue)));
		return new StatisticsJson(statistics.minutes().stream().map(BucketJson::of).toList(),
				statistics.hours().stream().map(BucketJson::of).toList());
	}

	@GetMapping("/api/queues/{queue}/jobs")
	PageJson jobs(@PathVariable String queue, @RequestParam String state, @RequestParam(defaultValue = "0") int offset,
			@RequestParam(defaultValue = "20") int count, HttpServletRequest request) {
		JobPage page = this.inspector.read(() -> this.inspector.jobs(requireQueue(queue), state(state), offset, count));
		return new PageJson(page.state().name(), page.total(), page.offset(), jobs(page.jobs(), request));
	}

	@GetMapping("/api/queues/{queue}/job")
	ResponseEntity<JobJson> job(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		JobView job = this.inspector.read(() -> this.inspector.job(requireQueue(queue), QueueNames.validateId(id)));
		return (job != null) ? ResponseEntity.ok(JobJson.of(job, showsPayloads(request)))
				: ResponseEntity.notFound().build();
	}

	@GetMapping("/api/queues/{queue}/dead")
	SearchJson deadJobs(@PathVariable String queue, @RequestParam(required = false) @Nullable String job,
			@RequestParam(required = false) @Nullable String error, @RequestParam(defaultValue = "20") int limit,
			HttpServletRequest request) {
		return found(this.inspector
			.read(() -> this.inspector.deadJobs(requireQueue(queue), blankToNull(job), blankToNull(error), limit)),
				request);
	}

	@GetMapping("/api/search")
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

	@GetMapping("/api/instances")
	List<InstanceJson> instances() {
		return this.inspector.read(() -> this.inspector.instances().stream().map(InstanceJson::of).toList());
	}

	@GetMapping("/api/recurring")
	List<RecurringJson> recurringJobs() {
		return this.inspector.read(() -> this.inspector.recurringJobs().stream().map(RecurringJson::of).toList());
	}

	@PostMapping("/api/recurring/{name}/{action}")
	ChangeJson changeRecurringJob(@PathVariable String name, @PathVariable String action, HttpServletRequest request) {
		requireChangeAllowed(request);
		RecurringJobs recurring = this.inspector.getRecurringJobs();
		if (recurring == null || recurring.list().stream().noneMatch((job) -> job.name().equals(name))) {
			throw new UnknownRecurringJobException(name);
		}
		boolean changed = switch (action) {
			case "pause" -> recurring.pause(name);
			case "resume" -> recurring.resume(name);
			case "trigger" -> recurring.trigger(name) != null;
			default ->
				throw new IllegalArgumentException("Unknown action '" + action + "': use pause, resume or trigger");
		};
		log(request, action, "recurring job", name, changed ? 1 : 0);
		return new ChangeJson(action, changed ? 1 : 0, false, null);
	}

	@GetMapping("/api/actions")
	List<Map<String, Object>> actions(@RequestParam(defaultValue = "100") int count) {
		if (count < 1 || count > ActionLog.MAX_ENTRIES) {
			throw new IllegalArgumentException("count must be between 1 and " + ActionLog.MAX_ENTRIES);
		}
		return this.inspector.read(() -> this.actions.latest(count));
	}

	@PostMapping("/api/queues/{queue}/{action:pause|resume}")
	QueueJson pauseOrResume(@PathVariable String queue, @PathVariable String action, HttpServletRequest request) {
		requireChangeAllowed(request);
		if (action.equals("pause")) {
			this.operations.pause(requireQueue(queue));
		}
		else {
			this.operations.resume(requireQueue(queue));
		}
		log(request, action, queue, "", 0);
		return describe(queue);
	}

	@PostMapping("/api/queues/{queue}/purge")
	QueueJson purge(@PathVariable String queue, @RequestParam(required = false) @Nullable String confirm,
			HttpServletRequest request) {
		requireChangeAllowed(request);
		requireQueue(queue);
		requireConfirmation(queue, confirm, "purge");
		this.operations.purge(queue);
		log(request, "purge", queue, "", 0);
		return describe(queue);
	}

	@PostMapping("/api/queues/{queue}/job/{action}")
	ChangeJson changeJob(@PathVariable String queue, @PathVariable String action, @RequestParam String id,
			@RequestParam(required = false) @Nullable Long delaySeconds, HttpServletRequest request) {
		requireChangeAllowed(request);
		requireQueue(queue);
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
		log(request, action, queue, id, changed ? 1 : 0);
		return new ChangeJson(action, changed ? 1 : 0, false, null);
	}

	@PostMapping("/api/queues/{queue}/dead/{action}")
	ChangeJson changeDeadJobs(@PathVariable String queue, @PathVariable String action,
			@RequestParam(required = false) @Nullable List<String> ids,
			@RequestParam(required = false) @Nullable String job,
			@RequestParam(required = false) @Nullable String error,
			@RequestParam(required = false) @Nullable String confirm,
			@RequestParam(required = false) @Nullable Long diedBy, HttpServletRequest request) {
		requireChangeAllowed(request);
		requireQueue(queue);
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
			requireConfirmation(queue, confirm, action + " every matching dead job of");
			cutoff = (diedBy != null) ? Instant.ofEpochMilli(diedBy) : this.inspector.latestDeath(queue);
			if (cutoff == null) {
				return new ChangeJson(action, 0, false, null);
			}
			SearchResult matching = this.inspector.deadJobs(queue, blankToNull(job), blankToNull(error),
					BULK_BATCH_SIZE, cutoff);
			chosen = matching.jobs().stream().map(JobView::id).toList();
			more = !matching.complete();
		}
		if (chosen.isEmpty()) {
			return new ChangeJson(action, 0, more, millis(cutoff));
		}
		long changed = changeDead(queue, action, chosen);
		log(request, action, queue, (ids != null && !ids.isEmpty()) ? String.join(",", ids)
				: "dead jobs matching job=" + ((job != null) ? job : "") + " error=" + ((error != null) ? error : ""),
				changed);
		return new ChangeJson(action, changed, more, millis(cutoff));
	}

	private long changeDead(String queue, String action, List<String> ids) {
		return action.equals("retry") ? this.operations.retryDead(queue, ids) : this.operations.deleteDead(queue, ids);
	}

	@ExceptionHandler
	ResponseEntity<Map<String, String>> unknownQueue(UnknownQueueException ex) {
		return error(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<Map<String, String>> unknownRecurringJob(UnknownRecurringJobException ex) {
		return error(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler({ ReadOnlyException.class, CrossSiteRequestException.class })
	ResponseEntity<Map<String, String>> forbidden(RuntimeException ex) {
		return error(HttpStatus.FORBIDDEN, ex.getMessage());
	}

	@ExceptionHandler({ IllegalArgumentException.class, MethodArgumentTypeMismatchException.class,
			MissingServletRequestParameterException.class })
	ResponseEntity<Map<String, String>> badRequest(Exception ex) {
		return error(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler({ DataAccessResourceFailureException.class, QueryTimeoutException.class })
	ResponseEntity<Map<String, String>> redisUnavailable(DataAccessException ex) {
		return error(HttpStatus.SERVICE_UNAVAILABLE,
				"Redis is unavailable, so the queues cannot be read or changed until it answers again: "
						+ ex.getMessage());
	}

	static ResponseEntity<Map<String, String>> error(HttpStatus status, @Nullable String message) {
		return ResponseEntity.status(status).body(Map.of("error", (message != null) ? message : status.name()));
	}

	void log(HttpServletRequest request, String action, String queue, String target, long jobs) {
		this.actions.record((request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null, action,
				queue, target, jobs);
	}

	private String requireQueue(String queue) {
		if (!this.inspector.exists(queue)) {
			throw new UnknownQueueException(queue);
		}
		return queue;
	}

	void requireChangeAllowed(HttpServletRequest request) {
		if (this.readOnlyBecause != null) {
			throw new ReadOnlyException(this.readOnlyBecause);
		}
		String origin = request.getHeader(HttpHeaders.ORIGIN);
		if (request.getHeader(CHANGE_HEADER) == null || origin == null
				|| !WebUtils.isSameOrigin(new ServletServerHttpRequest(request))) {
			throw new CrossSiteRequestException(origin, request);
		}
	}

	private boolean showsPayloads(HttpServletRequest request) {
		return switch (this.properties.getShowPayloads()) {
			case ALWAYS -> true;
			case NEVER -> false;
			case WHEN_AUTHORIZED -> request.getUserPrincipal() != null && (this.properties.getPayloadRoles().isEmpty()
					|| this.properties.getPayloadRoles().stream().anyMatch(request::isUserInRole));
		};
	}

	private List<JobJson> jobs(List<JobView> jobs, HttpServletRequest request) {
		boolean payloads = showsPayloads(request);
		return jobs.stream().map((job) -> JobJson.of(job, payloads)).toList();
	}

	private SearchJson found(SearchResult result, HttpServletRequest request) {
		return new SearchJson(jobs(result.jobs(), request), result.complete());
	}

	private static void requireConfirmation(String queue, @Nullable String confirm, String action) {
		if (!queue.equals(confirm)) {
			throw new IllegalArgumentException(
					"To " + action + " queue '" + queue + "', confirm with the queue name: confirm=" + queue);
		}
	}

	private QueueJson describe(String queue) {
		return describe(queue, this.inspector.snapshot(queue));
	}

	private QueueJson describe(String queue, QueueSnapshot snapshot) {
		return QueueJson.of(new InspectedQueue(queue, this.inspector.handledQueues().contains(queue),
				this.inspector.knownQueues().contains(queue) && !this.inspector.handledQueues().contains(queue),
				snapshot), consumers().getOrDefault(queue, 0), null);
	}

	// per queue, the live instances whose listener container of it runs, from the
	// registry the instances write their heartbeats to (read at most once a second)
	private Map<String, Integer> consumers() {
		Map<String, Integer> consumers = new HashMap<>();
		for (InstanceView instance : this.inspector.instances()) {
			for (InstanceView.ConsumedQueue queue : instance.queues()) {
				if (queue.running()) {
					consumers.merge(queue.queue(), 1, Integer::sum);
				}
			}
		}
		return consumers;
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

	private static @Nullable String blankToNull(@Nullable String text) {
		return (text != null && !text.isBlank()) ? text : null;
	}

	private static @Nullable Long millis(@Nullable Instant instant) {
		return (instant != null) ? instant.toEpochMilli() : null;
	}

	/**
	 * A queue as the page shows it: its counts, how many live instances consume it (run a
	 * listener container on it), and in the list of queues its last hour.
	 */
	record QueueJson(String name, boolean handled, boolean dispatched, boolean discovered, long ready, long delayed,
			long reserved, long dead, long oldestReadyAgeMillis, boolean paused, int consumers,
			@Nullable LastHourJson lastHour) {

		static QueueJson of(InspectedQueue queue, int consumers, @Nullable LastHourJson lastHour) {
			QueueSnapshot snapshot = queue.snapshot();
			return new QueueJson(queue.name(), queue.handled(), queue.dispatched(), queue.discovered(),
					snapshot.stats().ready(), snapshot.stats().delayed(), snapshot.stats().reserved(),
					snapshot.stats().dead(), snapshot.oldestReadyAge().toMillis(), snapshot.paused(), consumers,
					lastHour);
		}

	}

	/**
	 * A queue's counts per minute over the last hour, oldest first, as every instance
	 * counted them in Redis: the list of queues draws them.
	 *
	 * @param from the start of the first minute, in epoch milliseconds
	 */
	record LastHourJson(long from, long[] completed, long[] failed, long[] dead) {

		static LastHourJson of(List<QueueStatistics.Bucket> minutes) {
			return new LastHourJson(minutes.get(0).start().toEpochMilli(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::completed).toArray(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::failed).toArray(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::dead).toArray());
		}

	}

	/**
	 * A job as the page shows it; times in epoch milliseconds.
	 */
	record JobJson(String queue, String id, String state, @Nullable Long at, @Nullable String job, int attempts,
			@Nullable Object envelope, @Nullable String lease, @Nullable String error, @Nullable String stackTrace,
			@Nullable JobProgress progress) {

		static JobJson of(JobView job, boolean withPayload) {
			// a cursor is the job's data, hidden like its payload
			JobProgress progress = job.progress();
			return new JobJson(job.queue(), job.id(), job.state().name(), millis(job.at()), job.job(), job.attempts(),
					withPayload ? job.envelope() : hidden(job.envelope()), job.lease(), job.error(), job.stackTrace(),
					(progress != null && !withPayload && progress.cursor() != null)
							? new JobProgress(progress.fraction(), progress.message(), HIDDEN) : progress);
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
	 * A queue's statistics: per minute over the last hour, per hour over the retention.
	 */
	record StatisticsJson(List<BucketJson> minutes, List<BucketJson> hours) {
	}

	/**
	 * The counts of one minute or hour, from its start in epoch milliseconds.
	 */
	record BucketJson(long at, long completed, long failed, long dead) {

		static BucketJson of(QueueStatistics.Bucket bucket) {
			return new BucketJson(bucket.start().toEpochMilli(), bucket.completed(), bucket.failed(), bucket.dead());
		}

	}

	/**
	 * A recurring job as the page shows it; times in epoch milliseconds.
	 */
	record RecurringJson(String name, String queue, String schedule, @Nullable Long nextTick, @Nullable Long lastTick,
			boolean paused) {

		static RecurringJson of(RecurringJobView view) {
			RecurringJobInfo info = view.info();
			return new RecurringJson(info.name(), info.queue(), info.schedule().toString(), millis(info.nextTick()),
					millis(view.lastTick()), info.paused());
		}

	}

	/**
	 * An application instance and the queues it consumes; times in epoch milliseconds.
	 */
	record InstanceJson(String id, String application, String host, long pid, long startedAt, long heartbeatAt,
			List<InstanceView.ConsumedQueue> queues) {

		static InstanceJson of(InstanceView instance) {
			return new InstanceJson(instance.id(), instance.application(), instance.host(), instance.pid(),
					instance.startedAt().toEpochMilli(), instance.heartbeatAt().toEpochMilli(), instance.queues());
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

	/**
	 * What a change did: how many jobs it changed, and whether more match (a bulk change
	 * goes on with another request, passing the cutoff, in epoch milliseconds, as
	 * {@code diedBy}).
	 */
	record ChangeJson(String action, long jobs, boolean more, @Nullable Long cutoff) {
	}

	/**
	 * The CSRF token the page sends with each change, when Spring Security made one.
	 */
	record Csrf(String header, String parameter, String token) {

		static @Nullable Csrf of(HttpServletRequest request) {
			Object token = request.getAttribute(org.springframework.security.web.csrf.CsrfToken.class.getName());
			if (token instanceof org.springframework.security.web.csrf.CsrfToken csrf) {
				return new Csrf(csrf.getHeaderName(), csrf.getParameterName(), csrf.getToken());
			}
			return null;
		}

	}

	static final class UnknownQueueException extends RuntimeException {

		UnknownQueueException(String queue) {
			super("No queue '" + queue + "': no job of this application uses it and Redis holds none by that name");
		}

	}

	static final class UnknownRecurringJobException extends RuntimeException {

		UnknownRecurringJobException(String name) {
			super("No recurring job '" + name + "' in this application");
		}

	}

	static final class ReadOnlyException extends RuntimeException {

		ReadOnlyException(String because) {
			super("The dashboard is read-only: " + because);
		}

	}

	static final class CrossSiteRequestException extends RuntimeException {

		CrossSiteRequestException(@Nullable String origin, HttpServletRequest request) {
			super("Refused a change that did not come from the dashboard's page (Origin: " + origin + "): a change "
					+ "needs the header " + CHANGE_HEADER + " and the Origin of this server, " + request.getScheme()
					+ "://" + request.getServerName() + ":" + request.getServerPort() + ", which a form or script of "
					+ "another site cannot send. Behind a proxy that changes the host or the scheme, let the "
					+ "application see the address the browser used (server.forward-headers-strategy)");
		}

	}

}
