package io.redq.docs.gettingstarted;

// tag::snippet[]
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.Uniqueness;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * A job unique until it starts, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class UniqueExample {

	void example(JobDispatcher dispatcher, Object request) {
		// @formatter:off
		// tag::snippet[]
		dispatcher.dispatch(JobRequest.of("export", request)
			.id("export-7")
			.unique(Uniqueness.UNTIL_STARTED)
			.build());
		// end::snippet[]
		// @formatter:on
	}

}
