package io.redq.docs.gettingstarted;

// tag::snippet[]
import io.redq.queue.core.JobDispatcher;
// end::snippet[]

import java.time.Instant;

import org.slf4j.Logger;

/**
 * The calls on a timer, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class TimerExample {

	void example(JobDispatcher dispatcher, Instant endsAt, Logger log) {
		// @formatter:off
		// tag::snippet[]
		dispatcher.schedule("close-auction", 42, endsAt);          // set (CREATED), or move if one is pending (REPLACED)
		dispatcher.reschedule("close-auction", 42, endsAt.plusSeconds(30)); // anti-sniping: false if none is pending
		dispatcher.findTimer("close-auction", 42)                  // due time and remaining time
			.ifPresent((timer) -> log.info("closes in {} ms", timer.remaining().toMillis()));
		dispatcher.cancelTimer("close-auction", 42);               // true if a pending timer was removed
		// end::snippet[]
		// @formatter:on
	}

}
