package io.redq.docs.gettingstarted;

// tag::class[]
import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Service;
// end::class[]

/**
 * The handlers of the Getting started page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
// tag::class[]
@Service
public class MailJobs {

	private final Mailer mailer;

	public MailJobs(Mailer mailer) {
		this.mailer = mailer;
	}

	@QueuedJob(name = "send-invoice", queue = "mail", maxAttempts = 5, timeout = "30s",
			backoff = @Backoff(delay = "500ms", multiplier = "2", maxDelay = "10s"))
	public void sendInvoice(Invoice invoice, JobContext context) {
		this.mailer.send(invoice, context.getId());
	}

	@QueuedJob(queue = "mail")
	public void sendReminder(String email) {
		this.mailer.remind(email);
	}

}
// end::class[]

record Invoice(String number, String email) {
}

interface Mailer {

	void send(Invoice invoice, String jobId);

	void remind(String email);

}
