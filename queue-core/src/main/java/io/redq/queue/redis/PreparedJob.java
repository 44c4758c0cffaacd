package io.redq.queue.redis;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * A job ready to be enqueued: its queue, name, id, script arguments, and the observation
 * of its dispatch, if any.
 *
 * @param queue the queue
 * @param jobName the job name
 * @param id the job id
 * @param command the script arguments
 * @param observation the observation of the dispatch, or {@code null}
 * @author Redq team
 */
record PreparedJob(String queue, String jobName, String id, EnqueueCommand command, @Nullable Observation observation) {

	/**
	 * Record that the job was not dispatched.
	 * @param ex why
	 */
	void failed(Exception ex) {
		if (this.observation != null) {
			this.observation.error(ex).stop();
		}
	}

}
