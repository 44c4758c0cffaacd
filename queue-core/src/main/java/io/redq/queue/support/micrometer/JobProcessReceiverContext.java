package io.redq.queue.support.micrometer;

import io.micrometer.observation.transport.ReceiverContext;
import io.redq.queue.listener.JobContext;

/**
 * {@link ReceiverContext} of processing one attempt of a job. A tracer reads the trace
 * context from the headers of the job's envelope, so that the processing continues the
 * trace of the dispatch.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobProcessReceiverContext extends ReceiverContext<JobContext> {

	private final JobContext job;

	/**
	 * Create a context.
	 * @param job the job being processed
	 */
	public JobProcessReceiverContext(JobContext job) {
		super((carrier, key) -> carrier.getHeaders().get(key));
		setCarrier(job);
		setRemoteServiceName("redis");
		this.job = job;
	}

	/**
	 * Return the job being processed: its queue, name, id, attempt and headers.
	 * @return the job
	 */
	public JobContext getJob() {
		return this.job;
	}

}
