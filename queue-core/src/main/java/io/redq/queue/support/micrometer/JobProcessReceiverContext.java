package io.redq.queue.support.micrometer;

import java.util.Map;

import io.micrometer.observation.transport.ReceiverContext;

/**
 * {@link ReceiverContext} of processing one attempt of a job. Its carrier is the header
 * map of the job's envelope: a tracer reads the trace context from it, so that the
 * processing continues the trace of the dispatch.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobProcessReceiverContext extends ReceiverContext<Map<String, String>> {

	private final String queue;

	private final String jobName;

	private final String jobId;

	private final int attempt;

	/**
	 * Create a context.
	 * @param headers the headers the job was dispatched with
	 * @param queue the queue
	 * @param jobName the job name
	 * @param jobId the job id
	 * @param attempt the attempt, starting at 1
	 */
	public JobProcessReceiverContext(Map<String, String> headers, String queue, String jobName, String jobId,
			int attempt) {
		super((carrier, key) -> carrier.get(key));
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.queue = queue;
		this.jobName = jobName;
		this.jobId = jobId;
		this.attempt = attempt;
	}

	/**
	 * Return the headers the job was dispatched with.
	 * @return the headers
	 */
	public Map<String, String> getHeaders() {
		return getCarrier();
	}

	/**
	 * Return the queue the job came from.
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

	/**
	 * Return which attempt this is, starting at 1.
	 * @return the attempt
	 */
	public int getAttempt() {
		return this.attempt;
	}

}
