package io.redq.queue.dashboard;

import java.util.List;
import java.util.Map;

import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.OutboxStatus;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's view of the transactional outbox, present when {@code queue-outbox} is
 * on the class path and the application has a {@link JdbcJobOutbox}: the rows that the
 * relay moved aside, read in pages by id, and the changes an operator makes to them
 * (re-send a row, discard it), guarded by the {@link DashboardGuard} and written to its
 * log as every change of the dashboard is.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/outbox")
public class ParkedRowsController {

	/** The rows of a page when the request names no limit. */
	static final int DEFAULT_PAGE_SIZE = 20;

	private final JdbcJobOutbox outbox;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param outbox the outbox whose parked rows the dashboard shows
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public ParkedRowsController(JdbcJobOutbox outbox, DashboardGuard guard) {
		this.outbox = outbox;
		this.guard = guard;
	}

	@GetMapping("")
	StatusJson status() {
		OutboxStatus status = this.outbox.status();
		return new StatusJson(status.rows(), status.jobs(),
				(status.oldest() != null) ? status.oldest().toEpochMilli() : null, status.parked(),
				JdbcJobOutbox.COUNT_LIMIT);
	}

	@GetMapping("/parked")
	ParkedPageJson parked(@RequestParam(defaultValue = "0") long afterId,
			@RequestParam(defaultValue = "" + DEFAULT_PAGE_SIZE) int limit) {
		if (limit < 1 || limit > JdbcJobOutbox.MAX_PARKED_PAGE) {
			throw new IllegalArgumentException("limit must be between 1 and " + JdbcJobOutbox.MAX_PARKED_PAGE);
		}
		List<ParkedRowJson> rows = this.outbox.parkedRows(afterId, limit).stream().map(ParkedRowJson::of).toList();
		// a full page may have rows after it
		Long next = (rows.size() == limit) ? rows.get(rows.size() - 1).id() : null;
		return new ParkedPageJson(rows, next);
	}

	@PostMapping("/parked/{id}/{action:resend|discard}")
	ResponseEntity<?> change(@PathVariable long id, @PathVariable String action, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		boolean changed = action.equals("resend") ? this.outbox.retryParked(id) : this.outbox.deleteParked(id);
		if (!changed) {
			return DashboardGuard.error(HttpStatus.NOT_FOUND,
					"No parked outbox row " + id + ": it was re-sent or discarded already");
		}
		this.guard.log(request, action + " parked row", JdbcJobOutbox.PARKED_TABLE, String.valueOf(id), 1);
		return ResponseEntity.ok(new DashboardJson.ChangeJson(action, 1, false, null));
	}

	// the outbox's database, not Redis: before DashboardErrors' answer for Redis
	@ExceptionHandler(DataAccessException.class)
	ResponseEntity<Map<String, String>> databaseUnavailable(DataAccessException ex) {
		return DashboardGuard.error(HttpStatus.SERVICE_UNAVAILABLE,
				"The outbox's database could not be read or changed: " + ex.getMessage());
	}

	/**
	 * What waits in the outbox and what was moved aside, each counted up to
	 * {@code countLimit} rows; the oldest row's time in epoch milliseconds.
	 */
	record StatusJson(long waiting, long jobs, @Nullable Long oldest, long parked, int countLimit) {
	}

	/**
	 * A page of parked rows, and the {@code afterId} of the next page when there may be
	 * one.
	 */
	record ParkedPageJson(List<ParkedRowJson> rows, @Nullable Long next) {
	}

	/**
	 * A parked row as the page shows it; times in epoch milliseconds.
	 */
	record ParkedRowJson(long id, String queue, List<String> jobNames, int jobCount, long createdAt, long parkedAt,
			int attempts, String reason) {

		static ParkedRowJson of(JdbcJobOutbox.ParkedRow row) {
			return new ParkedRowJson(row.id(), row.queue(), row.jobNames(), row.jobCount(),
					row.createdAt().toEpochMilli(), row.parkedAt().toEpochMilli(), row.attempts(), row.reason());
		}

	}

}
