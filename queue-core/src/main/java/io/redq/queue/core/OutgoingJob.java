package io.redq.queue.core;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A job on its way to Redis, as {@link DispatchInterceptor}s see it: its name, queue, id
 * and payload, the headers it will carry (modifiable before it is written), and
 * attributes that interceptors keep for it between their calls.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class OutgoingJob {

	private final String jobName;

	private final String queue;

	private final String id;

	private final @Nullable Object payload;

	private final Map<String, String> headers;

	private @Nullable Map<String, Object> attributes;

	/**
	 * Create an instance.
	 * @param jobName the job name
	 * @param queue the queue
	 * @param id the job id
	 * @param payload the payload
	 * @param headers the headers the request carries
	 */
	public OutgoingJob(String jobName, String queue, String id, @Nullable Object payload, Map<String, String> headers) {
		this.jobName = jobName;
		this.queue = queue;
		this.id = id;
		this.payload = payload;
		this.headers = new LinkedHashMap<>(headers);
	}

	/**
	 * Return the job name.
	 * @return the name
	 */
	public String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the queue the job goes to.
	 * @return the queue name
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * Return the job id: the caller's, or the one generated for the job.
	 * @return the id
	 */
	public String getId() {
		return this.id;
	}

	/**
	 * Return the payload, as the caller gave it.
	 * @return the payload
	 */
	public @Nullable Object getPayload() {
		return this.payload;
	}

	/**
	 * Return the headers the job carries: add, change or remove entries in
	 * {@link DispatchInterceptor#beforeDispatch}; later changes are not sent.
	 * @return the modifiable headers
	 */
	public Map<String, String> getHeaders() {
		return this.headers;
	}

	/**
	 * Return an attribute an interceptor kept for this job.
	 * @param name the attribute name
	 * @return the value, or {@code null}
	 */
	public @Nullable Object getAttribute(String name) {
		return (this.attributes != null) ? this.attributes.get(name) : null;
	}

	/**
	 * Keep an attribute for this job, e.g. what
	 * {@link DispatchInterceptor#beforeDispatch} started and
	 * {@link DispatchInterceptor#afterDispatch} ends.
	 * @param name the attribute name
	 * @param value the value
	 */
	public void setAttribute(String name, Object value) {
		if (this.attributes == null) {
			this.attributes = new HashMap<>();
		}
		this.attributes.put(name, value);
	}

	@Override
	public String toString() {
		return "OutgoingJob[jobName=" + this.jobName + ", queue=" + this.queue + ", id=" + this.id + "]";
	}

}
