package io.redq.queue.event;

/**
 * Published when a listener container stopped: it reserves no more jobs, and its running
 * jobs finished or were handed back after the shutdown timeout. Its source is the
 * container.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ContainerStoppedEvent extends JobQueueEvent {

	/**
	 * Create an instance.
	 * @param source the container
	 * @param queue the queue it consumes
	 */
	public ContainerStoppedEvent(Object source, String queue) {
		super(source, queue);
	}

}
