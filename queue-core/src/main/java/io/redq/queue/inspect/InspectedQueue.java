package io.redq.queue.inspect;

import io.redq.queue.core.QueueSnapshot;

/**
 * A queue as the inspector sees it: its name, why the application knows it, and its
 * state.
 *
 * @param name the queue name
 * @param handled whether a job of this application is handled on it
 * @param dispatched whether this application dispatches or configures a job on it that it
 * does not handle; when neither, the queue was only found in Redis
 * @param snapshot its counts, oldest ready age and pause state
 * @author Redq team
 * @since 0.1.0
 */
public record InspectedQueue(String name, boolean handled, boolean dispatched, QueueSnapshot snapshot) {

	/**
	 * Return whether the queue was only found in Redis: no job of this application uses
	 * it.
	 * @return whether it was discovered
	 */
	public boolean discovered() {
		return !this.handled && !this.dispatched;
	}

}
