package io.redq.queue.event;

import java.util.Set;

import org.springframework.context.ApplicationEvent;

/**
 * Published once the application's listener containers that start with it all consume
 * their queues (Redis answered the first reservation of each): a readiness signal to wait
 * for, e.g. before sending traffic that dispatches jobs. Published again after the
 * containers were stopped and started again. Its source is the registry of the
 * containers.
 *
 * @author Redq team
 * @since 0.1.0
 * @see ContainerConsumingEvent
 */
public class ContainersConsumingEvent extends ApplicationEvent {

	private final Set<String> queues;

	/**
	 * Create an instance.
	 * @param source the registry
	 * @param queues the queues the containers consume
	 */
	public ContainersConsumingEvent(Object source, Set<String> queues) {
		super(source);
		this.queues = Set.copyOf(queues);
	}

	/**
	 * Return the queues the containers consume.
	 * @return the queue names
	 */
	public Set<String> getQueues() {
		return this.queues;
	}

	@Override
	public String toString() {
		return "ContainersConsumingEvent[queues=" + this.queues + "]";
	}

}
