package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.time.Duration;

import io.redq.queue.core.JobRequest;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * A debounced dispatch, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class DebounceExample {

	void example(JobDispatcher dispatcher, long productId) {
		// @formatter:off
		// tag::snippet[]
		dispatcher.dispatch(JobRequest.of("reindex-product", productId)
			.debounce("reindex-product-" + productId, Duration.ofSeconds(2))
			.build());
		// end::snippet[]
		// @formatter:on
	}

}
