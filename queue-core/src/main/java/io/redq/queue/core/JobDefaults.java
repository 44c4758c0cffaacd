package io.redq.queue.core;

import java.time.Duration;

/**
 * The values a job gets when its {@code @QueuedJob} declaration leaves them out.
 *
 * @param queue the queue
 * @param maxAttempts how many times a job is tried before it dies
 * @param timeout how long one attempt may run; zero for no limit
 * @param backoff the wait between attempts
 * @author Redq team
 * @since 0.1.0
 */
public record JobDefaults(String queue, int maxAttempts, Duration timeout, JobBackoff backoff) {

	/** The queue jobs go to unless they name one. */
	public static final String DEFAULT_QUEUE = "default";

	/** The default number of attempts. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/**
	 * The library defaults: queue {@code default}, 3 attempts, no timeout,
	 * {@link JobBackoff#DEFAULT}.
	 */
	public static final JobDefaults STANDARD = new JobDefaults(DEFAULT_QUEUE, DEFAULT_MAX_ATTEMPTS, Duration.ZERO,
			JobBackoff.DEFAULT);

}
