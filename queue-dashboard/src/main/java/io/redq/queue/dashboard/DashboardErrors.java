package io.redq.queue.dashboard;

import java.util.Map;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * The answers of the dashboard's views when a request fails, the same for each view: 404
 * for what is not there, 403 for a change refused by the {@link DashboardGuard}, 400 for
 * bad input, 503 while Redis is unavailable; each a JSON object with the {@code error}. A
 * view whose store is not Redis (the outbox's parked rows) answers for its own.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestControllerAdvice(basePackageClasses = DashboardErrors.class)
public class DashboardErrors {

	@ExceptionHandler
	ResponseEntity<Map<String, String>> notFound(DashboardGuard.NotFoundException ex) {
		return DashboardGuard.error(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler({ DashboardGuard.ReadOnlyException.class, DashboardGuard.CrossSiteRequestException.class })
	ResponseEntity<Map<String, String>> forbidden(RuntimeException ex) {
		return DashboardGuard.error(HttpStatus.FORBIDDEN, ex.getMessage());
	}

	@ExceptionHandler({ IllegalArgumentException.class, MethodArgumentTypeMismatchException.class,
			MissingServletRequestParameterException.class })
	ResponseEntity<Map<String, String>> badRequest(Exception ex) {
		return DashboardGuard.error(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	/**
	 * Return the failure of a cancel of a batch or chain whose call timed out, saying
	 * that it may be done in part: a call that timed out is not cancelled, and may still
	 * mark it cancelled as Redis answers, while its later calls, which cancel its pending
	 * jobs, were never made.
	 * @param what what was cancelled: e.g. {@code "batch"}
	 * @param ex the timeout
	 * @return the failure, answered 503
	 */
	static QueryTimeoutException cancelTimedOut(String what, QueryTimeoutException ex) {
		return new QueryTimeoutException(ex.getMessage() + ". The " + what + " may be cancelled in part, now or once "
				+ "Redis answers: cancel it again then, which is safe and finishes the cancel", ex);
	}

	@ExceptionHandler({ DataAccessResourceFailureException.class, QueryTimeoutException.class })
	ResponseEntity<Map<String, String>> redisUnavailable(DataAccessException ex) {
		return DashboardGuard.error(HttpStatus.SERVICE_UNAVAILABLE,
				"Redis is unavailable, so the queues cannot be read or changed until it answers again: "
						+ ex.getMessage());
	}

}
