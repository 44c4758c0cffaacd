package io.redq.docs.gettingstarted;

// tag::snippet[]
import io.redq.queue.core.JobDispatcher;
// end::snippet[]

/**
 * A job that another application handles, compiled for the Getting started page that
 * quotes it.
 *
 * @author Redq team
 */
class RemoteJobExample {

	void example(JobDispatcher dispatcher) {
		// @formatter:off
		// tag::snippet[]
		dispatcher.dispatch("generate-report", new ReportRequest("2025-Q4"));
		// end::snippet[]
		// @formatter:on
	}

	record ReportRequest(String quarter) {
	}

}
