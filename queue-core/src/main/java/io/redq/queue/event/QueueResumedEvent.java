package io.redq.queue.event;

/**
 * Published when this application resumed a queue through its {@code JobQueueOperations}
 * (the actuator endpoint, the dashboard and code all do); another application's resume
 * calls are not seen here. Its source is the operations.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class QueueResumedEvent extends JobQueueEvent {

	/**
	 * Create an instance.
	 * @param source the operations
	 * @param queue the queue
	 */
	public QueueResumedEvent(Object source, String queue) {
		super(source, queue);
	}

}
