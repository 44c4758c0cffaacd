package io.redq.queue.event;

/**
 * Published when this application paused a queue through its {@code JobQueueOperations}
 * (the actuator endpoint, the dashboard and code all do); another application's pause
 * calls are not seen here. Its source is the operations.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class QueuePausedEvent extends JobQueueEvent {

	/**
	 * Create an instance.
	 * @param source the operations
	 * @param queue the queue
	 */
	public QueuePausedEvent(Object source, String queue) {
		super(source, queue);
	}

}
