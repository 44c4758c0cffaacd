package io.redq.docs.overview;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.listener.JobContext;

/**
 * The example of the home page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
class OverviewExample {

	// tag::snippet[]
	@QueuedJob(name = "send-invoice", queue = "mail", maxAttempts = 5, timeout = "30s")
	void sendInvoice(Invoice invoice, JobContext context) {
		// send it
	}
	// end::snippet[]

	void placeOrder(JobDispatcher dispatcher, Invoice invoice) {
		// tag::snippet[]
		dispatcher.dispatch("send-invoice", invoice);
		// end::snippet[]
	}

	record Invoice(String number) {
	}

}
