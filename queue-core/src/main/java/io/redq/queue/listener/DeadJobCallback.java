package io.redq.queue.listener;

import org.jspecify.annotations.Nullable;

/**
 * Called once when a job of one name dies, with its payload and last error;
 * {@link io.redq.queue.annotation.DeadJobHandler @DeadJobHandler} methods are adapted to
 * this interface. Register one with {@code JobListenerRegistry#registerDeadJobCallback}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@FunctionalInterface
public interface DeadJobCallback {

	/**
	 * Act on a job that died, after it was recorded in its queue's dead set and after its
	 * error handler's recovery; on the thread that settled it. An exception thrown here
	 * is logged and changes nothing.
	 * @param payload the payload, as the job's handler takes it, or {@code null} when it
	 * could not be read
	 * @param job the dead job
	 * @param exception what failed its last attempt
	 * @throws Exception when the callback failed
	 */
	void jobDied(@Nullable Object payload, JobContext job, Throwable exception) throws Exception;

}
