package io.redq.queue.event;

import org.springframework.context.ApplicationEvent;

/**
 * An event about one queue, published with the application's
 * {@link org.springframework.context.ApplicationEventPublisher}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public abstract class JobQueueEvent extends ApplicationEvent {

	private final String queue;

	/**
	 * Create an instance.
	 * @param source the object that published the event
	 * @param queue the queue
	 */
	protected JobQueueEvent(Object source, String queue) {
		super(source);
		this.queue = queue;
	}

	/**
	 * Return the queue.
	 * @return the queue name
	 */
	public String getQueue() {
		return this.queue;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[queue=" + this.queue + "]";
	}

}
