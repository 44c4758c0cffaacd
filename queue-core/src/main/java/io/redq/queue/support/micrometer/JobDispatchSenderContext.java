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

	private final ObservedJob job;

	/**
	 * Create a context.
	 * @param headers the envelope's headers, which the trace context is added to
	 * @param job the job being dispatched
	 */
	public JobDispatchSenderContext(Map<String, String> headers, ObservedJob job) {
		super((carrier, key, value) -> carrier.put(key, value));
		setCarrier(headers);
		setRemoteServiceName("redis");
		this.job = job;
	}

	/**
	 * Return the job being dispatched.
	 * @return the job
	 */
	public ObservedJob getJob() {
		return this.job;
	}

}
