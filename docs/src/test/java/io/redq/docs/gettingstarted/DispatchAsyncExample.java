package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.util.concurrent.CompletableFuture;

import io.redq.queue.core.DispatchResult;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * A dispatch that does not wait, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class DispatchAsyncExample {

	void example(JobDispatcher dispatcher, Object invoice) {
		// @formatter:off
		// tag::snippet[]
		CompletableFuture<DispatchResult> result = dispatcher.dispatchAsync("send-invoice", invoice);
		// end::snippet[]
		// @formatter:on
	}

}
