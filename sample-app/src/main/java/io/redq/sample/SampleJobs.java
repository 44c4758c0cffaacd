package io.redq.sample;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobRejectedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;

/**
 * The sample's job handlers. Each records what it handled, so that the smoke test can
 * check it.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class SampleJobs {

	/** The invoice number whose first attempt fails, to show a retry. */
	public static final String FLAKY_INVOICE = "INV-FLAKY";

	private static final Log logger = LogFactory.getLog(SampleJobs.class);

	private final List<String> handled = new CopyOnWriteArrayList<>();

	/**
	 * Send an invoice: up to 5 attempts of at most 30 seconds each, retried after 500ms,
	 * 1s, 2s, ...
	 * @param invoice the invoice
	 * @param context the running job: id, attempt, headers, lease
	 */
	@QueuedJob(name = "send-invoice", queue = "mail", maxAttempts = 5, timeout = "30s",
			backoff = @Backoff(delay = "500ms", multiplier = "2", maxDelay = "10s"))
	public void sendInvoice(Invoice invoice, JobContext context) {
		if (invoice.amount().signum() < 0) {
			// retrying cannot fix bad data: straight to dead
			throw new JobRejectedException("Invoice " + invoice.number() + " has a negative amount");
		}
		if (FLAKY_INVOICE.equals(invoice.number()) && context.getAttempt() == 1) {
			throw new IllegalStateException("Mail server busy (simulated), try again later");
		}
		// the job id is stable across attempts: a real mailer would pass it on as an
		// idempotency key
		logger.info("Sent invoice " + invoice.number() + " to " + invoice.email() + " (job " + context.getId()
				+ ", attempt " + context.getAttempt() + " of " + context.getMaxAttempts() + ")");
		this.handled.add("send-invoice:" + invoice.number());
	}

	/**
	 * Remind a customer; the job name defaults to the method name in kebab case:
	 * {@code send-reminder}.
	 * @param email whom to remind
	 */
	@QueuedJob(queue = "mail")
	public void sendReminder(String email) {
		logger.info("Sent reminder to " + email);
		this.handled.add("send-reminder:" + email);
	}

	/**
	 * Close an auction: a timer set with {@code JobDispatcher.schedule}, keyed by the
	 * auction id (job id {@code close-auction:42}), so that it can be moved or cancelled.
	 * @param auctionId the auction
	 * @param context the running job
	 */
	@QueuedJob(name = "close-auction", queue = "auctions")
	public void closeAuction(long auctionId, JobContext context) {
		logger.info(
				"Closed auction " + auctionId + " (job " + context.getId() + ", due " + context.getAvailableAt() + ")");
		// the timer's job id, close-auction:42
		this.handled.add(context.getId());
	}

	/**
	 * Return what the handlers did so far, in order, as {@code <job>:<key>} entries.
	 * @return the handled jobs
	 */
	public List<String> getHandled() {
		return List.copyOf(this.handled);
	}

}
