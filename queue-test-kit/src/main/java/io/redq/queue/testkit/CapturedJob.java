package io.redq.queue.testkit;

import io.redq.queue.core.Due;
import io.redq.queue.core.JobRequest;
import org.jspecify.annotations.Nullable;

/**
 * A job that a {@link CapturingJobDispatcher} recorded instead of dispatching it.
 *
 * @param request the request as the application made it: job, payload, queue, due time,
 * id, uniqueness, headers
 * @param key the key of a timer ({@code schedule}), else {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record CapturedJob(JobRequest request, @Nullable Object key) {

	/**
	 * Return the job's name.
	 * @return the name, or {@code null} for a job named by its payload's type
	 */
	public @Nullable String jobName() {
		return this.request.getJobName();
	}

	/**
	 * Return the payload.
	 * @return the payload
	 */
	public @Nullable Object payload() {
		return this.request.getPayload();
	}

	/**
	 * Return when the job would be due: {@link Due#NOW}, after a delay or at an instant.
	 * @return the due time
	 */
	public Due due() {
		return this.request.getDue();
	}

	/**
	 * Return the id the application gave the job.
	 * @return the id, {@code <job>:<key>} for a timer, or {@code null}
	 */
	public @Nullable String id() {
		return this.request.getId();
	}

}
