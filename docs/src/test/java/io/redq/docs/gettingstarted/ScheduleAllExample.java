package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.DispatchResult;
// end::snippet[]

import io.redq.queue.core.JobDispatcher;

/**
 * Many timers in one call, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class ScheduleAllExample {

	void example(JobDispatcher dispatcher, List<Auction> auctions) {
		// @formatter:off
		// tag::snippet[]
		Map<Long, Instant> closings = new LinkedHashMap<>();
		for (Auction auction : auctions) {
			closings.put(auction.id(), auction.endsAt());
		}
		List<DispatchResult> results = dispatcher.scheduleAll("close-auction", closings); // in the map's order
		// end::snippet[]
		// @formatter:on
	}

	record Auction(long id, Instant endsAt) {
	}

}
