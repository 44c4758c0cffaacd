package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.time.Duration;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher; // inject it: the auto-configuration defines one
import io.redq.queue.core.JobRequest;
// end::snippet[]

import java.time.Instant;

/**
 * The ways to dispatch a job, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class DispatchExample {

	void example(JobDispatcher dispatcher, Invoice invoice, Auction auction) {
		// @formatter:off
		// tag::snippet[]
		// now, by job name
		String id = dispatcher.dispatch("send-invoice", invoice).id();

		// now, to the one job whose handler takes this payload type
		dispatcher.dispatch(invoice);

		// after a delay, measured on the Redis clock
		dispatcher.dispatch(JobRequest.of("send-reminder", "ada@example.com")
				.delay(Duration.ofMinutes(30))
				.build());

		// at an instant (millisecond resolution; an instant in the past means now)
		dispatcher.dispatch(JobRequest.of("close-auction", auction.id())
				.id("auction-" + auction.id(), DuplicatePolicy.REPLACE)
				.at(auction.endsAt())
				.build());
		// end::snippet[]
		// @formatter:on
	}

	record Invoice(String number) {
	}

	record Auction(long id, Instant endsAt) {
	}

}
