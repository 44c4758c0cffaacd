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

	@ExceptionHandler({ DataAccessResourceFailureException.class, QueryTimeoutException.class })
	ResponseEntity<Map<String, String>> redisUnavailable(DataAccessException ex) {
		return DashboardGuard.error(HttpStatus.SERVICE_UNAVAILABLE,
				"Redis is unavailable, so the queues cannot be read or changed until it answers again: "
						+ ex.getMessage());
	}

}
