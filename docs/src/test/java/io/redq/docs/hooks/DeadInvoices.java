package io.redq.docs.hooks;

// tag::dead-job-handler[]
import io.redq.queue.annotation.DeadJobHandler;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
// end::dead-job-handler[]

/**
 * The {@code @DeadJobHandler} example of the Hooks page, compiled for the page that
 * quotes it.
 *
 * @author Redq team
 */
class DeadInvoices {

	private final Support support;

	DeadInvoices(Support support) {
		this.support = support;
	}

	// tag::dead-job-handler[]
	@QueuedJob(name = "send-invoice", queue = "mail", maxAttempts = 5)
	void sendInvoice(Invoice invoice) {
		// send it
	}

	@DeadJobHandler("send-invoice")
	void invoiceNotSent(Invoice invoice, JobContext job, Throwable error) {
		support.tell("Invoice " + invoice.number() + " was not sent after " + job.getAttempt() + " attempts: "
				+ error.getMessage());
	}
	// end::dead-job-handler[]

	record Invoice(String number) {
	}

	interface Support {

		void tell(String message);

	}

}
