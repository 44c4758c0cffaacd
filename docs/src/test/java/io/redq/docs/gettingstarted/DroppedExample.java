package io.redq.docs.gettingstarted;

// tag::snippet[]
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobRequest;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * A dispatch answered DROPPED, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class DroppedExample {

	void example(JobDispatcher dispatcher, Object request) {
		// @formatter:off
		// tag::snippet[]
		DispatchResult result = dispatcher.dispatch(JobRequest.of("export", request).id("export-7").build());
		if (result.outcome() == DispatchResult.Outcome.DROPPED) {
			// export-7 is running now, with the payload of an earlier dispatch
		}
		// end::snippet[]
		// @formatter:on
	}

}
