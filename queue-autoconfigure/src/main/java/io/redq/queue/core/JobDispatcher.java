package io.redq.queue.core;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Dispatches jobs to their queues: now, after a delay, at an instant, or under a
 * caller-chosen id.
 *
 * <pre class="code">
 * dispatcher.dispatch("send-invoice", invoice);
 * dispatcher.dispatch(JobRequest.of("cancel-order", orderId)
 *         .id("cancel-order-" + orderId)
 *         .delay(Duration.ofMinutes(30))
 *         .build());
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobDispatcher {

	/**
	 * Dispatch a job to run now.
	 * @param jobName the job name
	 * @param payload the payload, serialized as JSON
	 * @return the job id
	 * @throws IllegalArgumentException when no job has that name
	 */
	default String dispatch(String jobName, @Nullable Object payload) {
		return dispatch(JobRequest.of(jobName, payload).build());
	}

	/**
	 * Dispatch a job to run now, to the one job whose handler takes the payload's type.
	 * @param payload the payload, serialized as JSON
	 * @return the job id
	 * @throws IllegalArgumentException when no job, or more than one, takes that type
	 */
	default String dispatch(Object payload) {
		return dispatch(JobRequest.of(payload).build());
	}

	/**
	 * Dispatch a job.
	 * @param request the job and its options
	 * @return the job id (the caller-chosen one, or a generated one)
	 */
	default String dispatch(JobRequest request) {
		return dispatchAll(List.of(request)).get(0);
	}

	/**
	 * Dispatch many jobs in as few Redis round trips as possible: one per queue for up to
	 * 1,000 jobs. Each such batch is enqueued atomically.
	 * @param requests the jobs
	 * @return the job ids, in the order of the requests
	 */
	List<String> dispatchAll(Collection<JobRequest> requests);

	/**
	 * Cancel a pending (ready or delayed) job. A job that is running or finished is not
	 * touched.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether a pending job was removed
	 */
	boolean cancel(String queue, String id);

}
