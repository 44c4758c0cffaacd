package io.redq.queue.core;

import java.time.Duration;

import org.springframework.dao.TransientDataAccessException;

/**
 * Thrown when Redis did not answer a dispatch within the dispatcher's timeout (see
 * {@link io.redq.queue.redis.RedisJobDispatcher#setTimeout(Duration)}): it is down,
 * unreachable or overloaded. When the dispatch was {@linkplain #isSent() sent}, or is
 * held by the Redis client until it reconnects, its jobs may still be enqueued later;
 * dispatching them again under the same ids with {@link DuplicatePolicy#KEEP} keeps a job
 * that is still pending rather than adding a second. A dispatch that was not sent, as it
 * waited behind a call of its queue that Redis did not answer, is not enqueued.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DispatchTimeoutException extends TransientDataAccessException {

	private static final String SENT = "The call is not cancelled: the jobs may still be enqueued if Redis takes it "
			+ "before the Redis command timeout (spring.data.redis.timeout). Check that Redis is up and reachable. To "
			+ "dispatch again without adding a second job, dispatch under the same job id (JobRequest.id, "
			+ "DuplicatePolicy.KEEP): a job still pending is kept";

	private static final String NOT_SENT = "The jobs were not sent, as the call before them on their queue still "
			+ "waits for its reply: they will not be enqueued. Check that Redis is up and reachable, then dispatch "
			+ "them again";

	private final boolean sent;

	/**
	 * Create an instance for a call that was sent.
	 * @param queue the queue of the jobs
	 * @param jobs how many jobs the call that timed out carried
	 * @param timeout the timeout
	 */
	public DispatchTimeoutException(String queue, int jobs, Duration timeout) {
		this(queue, jobs, timeout, true);
	}

	/**
	 * Create an instance.
	 * @param queue the queue of the jobs
	 * @param jobs how many jobs timed out
	 * @param timeout the timeout
	 * @param sent whether the jobs were sent, and so may still be enqueued
	 */
	public DispatchTimeoutException(String queue, int jobs, Duration timeout, boolean sent) {
		super("Redis did not take " + jobs + " job(s) of queue '" + queue + "' within " + timeout.toMillis()
				+ " ms (redq.dispatcher.timeout): it is down, unreachable or overloaded. " + (sent ? SENT : NOT_SENT));
		this.sent = sent;
	}

	/**
	 * Return whether the jobs were sent to Redis, and so may still be enqueued; if not,
	 * they will not be.
	 * @return whether the jobs were sent
	 */
	public boolean isSent() {
		return this.sent;
	}

}
