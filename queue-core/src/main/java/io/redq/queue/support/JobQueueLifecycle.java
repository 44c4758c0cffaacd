package io.redq.queue.support;

import org.springframework.context.SmartLifecycle;

/**
 * A {@link SmartLifecycle} in the phase that Redq's components share: the listener
 * containers, their registry and the dispatcher.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobQueueLifecycle extends SmartLifecycle {

	/**
	 * The phase of the listener containers, their registry and the dispatcher: late, so
	 * that they start last and stop first, before the Redis connection factory (phase 0).
	 * One phase for all, so that none of them ends the phase of another before its jobs
	 * are finished or sent.
	 */
	int PHASE = Integer.MAX_VALUE - 100;

	/**
	 * Return {@link #PHASE}.
	 * @return the phase
	 */
	@Override
	default int getPhase() {
		return PHASE;
	}

}
