package io.redq.queue.redis;

/**
 * A job checked and written as the enqueue script takes it, to be sent later: see
 * {@link RedisJobDispatcher#check(io.redq.queue.core.JobRequest)}.
 *
 * @param queue the job's queue
 * @param command the script arguments of the job
 * @author Redq team
 * @since 0.1.0
 */
public record PreparedCommand(String queue, EnqueueCommand command) {
}
