package io.redq.docs.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The application that the "Testing your jobs" examples test: a job that sends an
 * invoice, a timer that reminds of it, and a checkout that dispatches both.
 *
 * @author Redq team
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ InvoiceJobs.Handlers.class, InvoiceJobs.Checkout.class })
class InvoiceJobs {

	record Invoice(String number, String email) {
	}

	static class Handlers {

		final List<String> sent = new CopyOnWriteArrayList<>();

		final List<String> reminded = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "send-invoice", queue = "mail")
		void sendInvoice(Invoice invoice) {
			this.sent.add(invoice.number());
		}

		@QueuedJob(name = "remind", queue = "mail")
		void remind(String invoiceNumber) {
			this.reminded.add(invoiceNumber);
		}

	}

	static class Checkout {

		private final JobDispatcher dispatcher;

		Checkout(JobDispatcher dispatcher) {
			this.dispatcher = dispatcher;
		}

		void placeOrder(Invoice invoice) {
			this.dispatcher.dispatch("send-invoice", invoice);
			this.dispatcher.schedule("remind", invoice.number(), Instant.now().plus(Duration.ofDays(14)));
		}

	}

}
