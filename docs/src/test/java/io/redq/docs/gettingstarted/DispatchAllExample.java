package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobRequest;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * Many jobs in one call, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class DispatchAllExample {

	void example(JobDispatcher dispatcher, Object invoice1, Object invoice2) {
		// @formatter:off
		// tag::snippet[]
		List<DispatchResult> results = dispatcher.dispatchAll(List.of(
				JobRequest.of("send-invoice", invoice1).build(),
				JobRequest.of("send-invoice", invoice2).build()));
		// end::snippet[]
		// @formatter:on
	}

}
