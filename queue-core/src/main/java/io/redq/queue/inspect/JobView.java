package io.redq.queue.inspect;

import java.time.Instant;
import java.util.Map;

import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobStatus;
import org.jspecify.annotations.Nullable;

/**
 * One job as stored, parsed for display.
 *
 * @param queue the queue
 * @param id the job id
 * @param state where the job is
 * @param at its due time (delayed), lease expiry (reserved), time of death (dead) or
 * completion (completed); when it became ready (ready); {@code null} when unknown, and
 * for a delayed job parked in line behind its limits (an exclusive key or a running
 * limit)
 * @param job the job name, or {@code null} when the envelope cannot be read
 * @param attempts how many attempts it has used
 * @param envelope the stored envelope as a JSON object, or as text when it is not valid
 * JSON, or {@code null} when nothing is stored (a completed job)
 * @param lease the lease token of the run holding it ({@code <sequence>:<attempt>}), or
 * {@code null} when it is not running
 * @param error the last error (its exception and causes, on one line), or {@code null}
 * when it has not failed
 * @param stackTrace the stack trace of that error when a handler threw it, bounded in
 * size; read for one job, {@code null} in pages and searches
 * @param progress how far the job has come, as its handler last reported it, or
 * {@code null} when it reported none; read for one job, {@code null} in pages and
 * searches
 * @author Redq team
 * @since 0.1.0
 */
public record JobView(String queue, String id, JobStatus.State state, @Nullable Instant at, @Nullable String job,
		int attempts, @Nullable Object envelope, @Nullable String lease, @Nullable String error,
		@Nullable String stackTrace, @Nullable JobProgress progress) {

	/**
	 * Return the job's payload.
	 * @return the payload, or {@code null} when the envelope has none or cannot be read
	 */
	public @Nullable Object payload() {
		return (this.envelope instanceof Map<?, ?> map) ? map.get("payload") : null;
	}

	/**
	 * Return the job's headers.
	 * @return the headers, empty when it has none
	 */
	public Map<?, ?> headers() {
		return (this.envelope instanceof Map<?, ?> map && map.get("headers") instanceof Map<?, ?> headers) ? headers
				: Map.of();
	}

}
