package io.redq.docs.gettingstarted;

// tag::snippet[]
import io.redq.queue.core.JobDispatcher;
// end::snippet[]

/**
 * Cancelling a pending job, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class CancelExample {

	void example(JobDispatcher dispatcher) {
		// @formatter:off
		// tag::snippet[]
		boolean cancelled = dispatcher.cancel("mail", "reminder-frank");
		// end::snippet[]
		// @formatter:on
	}

}
