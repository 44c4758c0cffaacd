package io.redq.queue.redis;

import org.jspecify.annotations.Nullable;

/**
 * A job ready to be enqueued: its queue, name, id, script arguments, and the interceptors
 * it passed, if any.
 *
 * @param queue the queue
 * @param jobName the job name
 * @param id the job id
 * @param command the script arguments
 * @param interception the interceptors the job passed, to tell how its dispatch ended, or
 * {@code null}
 * @author Redq team
 */
record PreparedJob(String queue, String jobName, String id, EnqueueCommand command,
		DispatchInterceptors.@Nullable Interception interception) {

	/**
	 * Record that the job is in Redis.
	 */
	void dispatched() {
		if (this.interception != null) {
			this.interception.dispatched();
		}
	}

	/**
	 * Record that the job was not dispatched.
	 * @param ex why
	 */
	void failed(Exception ex) {
		if (this.interception != null) {
			this.interception.failed(ex);
		}
	}

}
