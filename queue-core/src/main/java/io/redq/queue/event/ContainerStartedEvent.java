package io.redq.queue.event;

/**
 * Published when a listener container started: it reserves jobs of its queue from now on
 * (see {@link ContainerConsumingEvent} for when Redis first answered). Its source is the
 * container.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ContainerStartedEvent extends JobQueueEvent {

	/**
	 * Create an instance.
	 * @param source the container
	 * @param queue the queue it consumes
	 */
	public ContainerStartedEvent(Object source, String queue) {
		super(source, queue);
	}

}
