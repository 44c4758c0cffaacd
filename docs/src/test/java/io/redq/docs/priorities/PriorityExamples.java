package io.redq.docs.priorities;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

/**
 * The examples of the Priorities and groups page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
class PriorityExamples {

	// tag::levels[]
	@QueuedJob(name = "password-reset", queue = "mail", priority = 8)
	void sendPasswordReset(ResetMail mail) {
		// send it
	}

	@QueuedJob(name = "newsletter", queue = "mail", priority = 2)
	void sendNewsletter(Newsletter mail) {
		// send it
	}
	// end::levels[]

	void resetRequested(JobDispatcher dispatcher, ResetMail mail) {
		// tag::levels[]
		// per dispatch: this one reset mail goes ahead of the other resets
		dispatcher.dispatch(JobRequest.of("password-reset", mail).priority(9).build());
		// end::levels[]
	}

	void rowImported(JobDispatcher dispatcher, Row row, Customer customer) {
		// tag::group[]
		dispatcher.dispatch(JobRequest.of("import-row", row).group(customer.id()).build());
		// end::group[]
	}

	record ResetMail(String email) {
	}

	record Newsletter(String issue) {
	}

	record Row(String line) {
	}

	record Customer(String id) {
	}

}
