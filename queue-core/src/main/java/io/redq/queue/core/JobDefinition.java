package io.redq.queue.core;

import java.lang.reflect.Type;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A kind of job, known by its name: where it is queued and how it is retried.
 *
 * @param name the job name, stored in each job's envelope and used to find its handler
 * @param queue the queue jobs go to unless a dispatch names another
 * @param maxAttempts how many times a job is tried before it dies
 * @param timeout how long one attempt may run before it is interrupted and failed; zero
 * for no limit
 * @param backoff the wait between attempts
 * @param payloadType the payload type the handler takes, or {@code null} when this
 * application only dispatches the job
 * @param limits how the job runs across all application instances
 * @param priority the priority level of its jobs unless a dispatch names another (see
 * {@link JobPriority})
 * @author Redq team
 * @since 0.1.0
 */
public record JobDefinition(String name, String queue, int maxAttempts, Duration timeout, JobBackoff backoff,
		@Nullable Type payloadType, JobLimits limits, int priority) {

	/**
	 * Create an instance without limits.
	 * @param name the job name
	 * @param queue the queue
	 * @param maxAttempts how many times a job is tried before it dies
	 * @param timeout how long one attempt may run; zero for no limit
	 * @param backoff the wait between attempts
	 * @param payloadType the payload type the handler takes, or {@code null}
	 */
	public JobDefinition(String name, String queue, int maxAttempts, Duration timeout, JobBackoff backoff,
			@Nullable Type payloadType) {
		this(name, queue, maxAttempts, timeout, backoff, payloadType, JobLimits.NONE);
	}

	/**
	 * Create an instance at the default priority.
	 * @param name the job name
	 * @param queue the queue
	 * @param maxAttempts how many times a job is tried before it dies
	 * @param timeout how long one attempt may run; zero for no limit
	 * @param backoff the wait between attempts
	 * @param payloadType the payload type the handler takes, or {@code null}
	 * @param limits how the job runs across all application instances
	 */
	public JobDefinition(String name, String queue, int maxAttempts, Duration timeout, JobBackoff backoff,
			@Nullable Type payloadType, JobLimits limits) {
		this(name, queue, maxAttempts, timeout, backoff, payloadType, limits, JobPriority.DEFAULT);
	}

	/**
	 * Create an instance, checking the values.
	 */
	public JobDefinition {
		Assert.hasText(name, "Job name must not be empty");
		QueueNames.validate(queue);
		Assert.isTrue(maxAttempts >= 1,
				() -> "Job '" + name + "' must have maxAttempts of at least 1, not " + maxAttempts);
		Assert.isTrue(!timeout.isNegative(), () -> "Job '" + name + "' must not have a negative timeout");
		JobPriority.validate(priority, "Job '" + name + "'");
	}

}
