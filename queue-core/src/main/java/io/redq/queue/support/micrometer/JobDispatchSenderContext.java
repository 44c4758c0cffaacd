package io.redq.queue.support.micrometer;

import java.util.Map;

import io.micrometer.observation.transport.SenderContext;

/**
 * {@link SenderContext} of dispatching one job. Its carrier is the header map of the
 * job's envelope, so that a tracer writes the trace context into the job itself.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobDispatchSenderContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final String jobName;

	private final String jobId;

	/**
	 * Create a context.
	 * @param headers the envelope's headers, which the trace context is added to
	 * @param queue the queue
	 * @param jobName the job name
	 * @param jobId the job id
	 */
	public JobDispatchSenderContext(Map<String, String> headers, String queue, String jobName, String jobId) {
		super((carrier, key, value) -> carrier.put(key, value));
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.queue = queue;
		this.jobName = jobName;
		this.jobId = jobId;
	}

	/**
	 * Return the queue the job goes to.
	 * @return the queue
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * Return the job name.
	 * @return the job name
	 */
	public String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the job id.
	 * @return the job id
	 */
	public String getJobId() {
		return this.jobId;
	}

}
