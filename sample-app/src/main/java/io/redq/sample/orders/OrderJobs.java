package io.redq.sample.orders;

import java.math.RoundingMode;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
import io.redq.sample.mail.Mailer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * The jobs an order sets off: its invoice mail and its payment timer.
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

	private static final Log logger = LogFactory.getLog(OrderJobs.class);

	private final OrderService orders;

	private final Mailer mailer;

	public OrderJobs(OrderService orders, Mailer mailer) {
		this.orders = orders;
		this.mailer = mailer;
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

}
