package io.redq.queue.autoconfigure.endpoint;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * Thrown by the {@code redq} endpoint when Redis cannot be reached or does not answer in
 * time: over HTTP a 503 (Service Unavailable) whose message says so, rather than a 500.
 *
 * @author Redq team
 * @since 0.1.0
 */
@ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
public class RedisUnavailableException extends RuntimeException {

	/**
	 * Create an instance.
	 * @param cause what Redis or its client reported
	 */
	public RedisUnavailableException(Throwable cause) {
		super("Redis is unavailable, so the queues cannot be read or changed until it answers again: "
				+ cause.getMessage(), cause);
	}

}
