package io.redq.queue.redis;

import org.jspecify.annotations.Nullable;

/**
 * A job ready to be stored, as {@link RedisJobDispatcher#prepare} wrote it after the
 * dispatch interceptors: its queue, name, id and enqueue command. Whoever stores it tells
 * the interceptors how its dispatch ended, once: {@link #dispatched()} or
 * {@link #failed(Exception)}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class PreparedJob {

	private final String queue;

	private final String jobName;

	private final String id;

	private final EnqueueCommand command;

	private final DispatchInterceptors.@Nullable Interception interception;

	PreparedJob(String queue, String jobName, String id, EnqueueCommand command,
			DispatchInterceptors.@Nullable Interception interception) {
		this.queue = queue;
		this.jobName = jobName;
		this.id = id;
		this.command = command;
		this.interception = interception;
	}

	/**
	 * Return the job's queue.
	 * @return the queue
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * Return the job's name.
	 * @return the job name
	 */
	public String jobName() {
		return this.jobName;
	}

	/**
	 * Return the job's id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Return the job as the enqueue script takes it.
	 * @return the command
	 */
	public EnqueueCommand command() {
		return this.command;
	}

	/**
	 * Tell the interceptors the job was dispatched: Redis has it, or a transactional
	 * outbox that sends it committed it.
	 */
	public void dispatched() {
		if (this.interception != null) {
			this.interception.dispatched();
		}
	}

	/**
	 * Tell the interceptors the job was not dispatched.
	 * @param ex why
	 */
	public void failed(Exception ex) {
		if (this.interception != null) {
			this.interception.failed(ex);
		}
	}

}
