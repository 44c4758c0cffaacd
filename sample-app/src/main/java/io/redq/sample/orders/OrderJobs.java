package io.redq.sample.orders;

import java.math.RoundingMode;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.listener.JobContext;
import io.redq.sample.mail.Mailer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * The jobs an order sets off: its invoice mail and its payment timer, and the callback of
 * a batch of payment reminders.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class OrderJobs {

	/** The invoice mail's job. */
	public static final String SEND_INVOICE = "send-invoice";

	/** The payment timer's job, keyed by the order id. */
	public static final String CANCEL_UNPAID_ORDER = "cancel-unpaid-order";

	/** The callback of a batch of payment reminders. */
	public static final String REMINDERS_SENT = "reminders-sent";

	private static final Log logger = LogFactory.getLog(OrderJobs.class);

	private final OrderService orders;

	private final Mailer mailer;

	private final JobDispatcher dispatcher;

	public OrderJobs(OrderService orders, Mailer mailer, JobDispatcher dispatcher) {
		this.orders = orders;
		this.mailer = mailer;
		this.dispatcher = dispatcher;
	}

	/**
	 * Mail an invoice: up to 5 attempts of at most 30 seconds each, retried after 1s, 2s,
	 * 4s, ... when the mail server is busy.
	 * @param invoice the invoice
	 * @param context the running job; its id is the idempotency key
	 */
	@QueuedJob(name = SEND_INVOICE, queue = "mail", maxAttempts = 5, timeout = "30s",
			backoff = @Backoff(delay = "1s", multiplier = "2", maxDelay = "1m"))
	public void sendInvoice(Invoice invoice, JobContext context) {
		this.mailer.send(context.getId(), invoice.email(), "Invoice for order " + invoice.orderId() + ": "
				+ invoice.total().setScale(2, RoundingMode.HALF_EVEN).toPlainString());
	}

	/**
	 * Cancel an order that is still unpaid when its payment timer fires.
	 * @param orderId the order, the timer's key
	 */
	@QueuedJob(name = CANCEL_UNPAID_ORDER, queue = "orders")
	public void cancelUnpaidOrder(long orderId) {
		if (this.orders.cancelIfUnpaid(orderId)) {
			logger.info("Cancelled order " + orderId + ": not paid within " + OrderService.PAYMENT_WINDOW.toMinutes()
					+ " minutes");
		}
	}

	/**
	 * Tell a customer how many payment reminders went out: the callback of their batch,
	 * enqueued once when every reminder was sent or gave up.
	 * @param email the customer's email
	 * @param context the running callback; its headers name the batch
	 */
	@QueuedJob(name = REMINDERS_SENT, queue = "mail")
	public void remindersSent(String email, JobContext context) {
		String batchId = context.getHeaders().get(BatchRequest.BATCH_HEADER);
		BatchStatus batch = this.dispatcher.findBatch(batchId).orElseThrow();
		this.mailer.send(context.getId(), email,
				"Payment reminders: " + batch.succeeded() + " of " + batch.total() + " sent");
	}

}
