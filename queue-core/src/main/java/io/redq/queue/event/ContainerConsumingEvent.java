package io.redq.queue.event;

/**
 * Published once per start of a listener container, when Redis answered its first
 * reservation: the container consumes its queue. Its source is the container.
 *
 * @see ContainersConsumingEvent
 * @author Redq team
 * @since 0.1.0
 */
public class ContainerConsumingEvent extends JobQueueEvent {

	/**
	 * Create an instance.
	 * @param source the container
	 * @param queue the queue it consumes
	 */
	public ContainerConsumingEvent(Object source, String queue) {
		super(source, queue);
	}

}
