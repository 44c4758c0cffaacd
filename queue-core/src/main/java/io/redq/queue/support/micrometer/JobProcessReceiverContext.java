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

	private final ObservedJob job;

	private final int attempt;

	/**
	 * Create a context.
	 * @param headers the headers the job was dispatched with
	 * @param job the job being processed
	 * @param attempt the attempt, starting at 1
	 */
	public JobProcessReceiverContext(Map<String, String> headers, ObservedJob job, int attempt) {
		super((carrier, key) -> carrier.get(key));
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.job = job;
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
	 * Return the job being processed.
	 * @return the job
	 */
	public ObservedJob getJob() {
		return this.job;
	}

	/**
	 * Return which attempt this is, starting at 1.
	 * @return the attempt
	 */
	public int getAttempt() {
		return this.attempt;
	}

}
