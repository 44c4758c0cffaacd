package io.redq.docs.gettingstarted;

// tag::snippet[]
import java.util.List;

import io.redq.queue.core.JobQueueOperations; // inject it: the auto-configuration defines one
// end::snippet[]

/**
 * The operations on a queue, compiled for the Getting started page that quotes it.
 *
 * @author Redq team
 */
class OperationsExample {

	void example(JobQueueOperations operations, String id) {
		// @formatter:off
		// tag::snippet[]
		operations.snapshot("mail");              // counts by state and how long the oldest ready job has waited
		operations.pause("mail");                 // every instance stops reserving; running jobs finish
		operations.resume("mail");
		operations.deadJobs("mail", 0, 20);       // newest dead jobs: id, time of death, envelope, last error, attempts
		operations.deadJob("mail", id);           // one dead job, or null
		operations.retryDead("mail", List.of(id)); // with fresh attempts; an empty list retries every dead job
		                                           // (those dead when the call began: not again one that dies meanwhile)
		operations.deleteDead("mail", List.of());  // deletes every dead job
		operations.trigger("mail", id);           // make a delayed job or timer ready now
		operations.purge("mail");                 // deletes every job of the queue; a paused queue stays paused
		// end::snippet[]
		// @formatter:on
	}

}
