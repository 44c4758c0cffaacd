package io.redq.queue.core;

import java.time.Duration;

import org.springframework.dao.TransientDataAccessException;

/**
 * Thrown when Redis did not answer a dispatch within the dispatcher's timeout (see
 * {@link io.redq.queue.redis.RedisJobDispatcher#setTimeout(Duration)}): it is down,
 * unreachable or overloaded. The dispatch was sent, or is held by the Redis client until
 * it reconnects, so its jobs may still be enqueued later; dispatching them again under
 * the same ids with {@link DuplicatePolicy#KEEP} keeps a job that is still pending rather
 * than adding a second.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DispatchTimeoutException extends TransientDataAccessException {

	/**
	 * Create an instance.
	 * @param queue the queue of the jobs
	 * @param jobs how many jobs the call that timed out carried
	 * @param timeout the timeout
	 */
	public DispatchTimeoutException(String queue, int jobs, Duration timeout) {
		super("Redis did not take " + jobs + " job(s) of queue '" + queue + "' within " + timeout.toMillis()
				+ " ms (redq.dispatcher.timeout): it is down, unreachable or overloaded. The call is not cancelled: "
				+ "the jobs may still be enqueued if Redis takes it before the Redis command timeout "
				+ "(spring.data.redis.timeout). Check that Redis is up and reachable. To dispatch again without "
				+ "adding a second job, dispatch under the same job id (JobRequest.id, DuplicatePolicy.KEEP): a job "
				+ "still pending is kept");
	}

}
