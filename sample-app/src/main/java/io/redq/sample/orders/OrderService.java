package io.redq.sample.orders;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.NoSuchElementException;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.sample.ConflictException;
import io.redq.sample.catalog.Catalog;
import io.redq.sample.catalog.Product;
import io.redq.sample.orders.Order.Status;
import io.redq.sample.partners.Shipment;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.Assert;

/**
 * Places, pays and cancels orders. The {@link JobDispatcher} follows the transaction:
 * with {@code queue-outbox} on the class path, what a method dispatches is written to the
 * outbox table in the transaction, and its relay sends it to Redis once the transaction
 * committed; a rollback leaves nothing to send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class OrderService {

	/** How long an order may stay unpaid before it is cancelled. */
	public static final Duration PAYMENT_WINDOW = Duration.ofMinutes(30);

	/** The most items of one product an order may take. */
	static final int MAX_QUANTITY = 100;

	/** The most unpaid orders one reminder sends invoices for. */
	static final int MAX_REMINDED = 1000;

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	private final Catalog catalog;

	public OrderService(JdbcClient jdbc, JobDispatcher dispatcher, Catalog catalog) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
		this.catalog = catalog;
	}

	/**
	 * Place an order: save it, take its items from stock, send its invoice and set its
	 * payment timer.
	 * @param email the customer's email
	 * @param productId what to order
	 * @param quantity how many
	 * @return the order, unpaid
	 * @throws ConflictException when fewer items are in stock; nothing is saved or sent
	 */
	@Transactional
	public Order place(String email, long productId, int quantity) {
		Assert.hasText(email, "email is required");
		Assert.isTrue(quantity >= 1 && quantity <= MAX_QUANTITY,
				() -> "quantity must be between 1 and " + MAX_QUANTITY + ", but was " + quantity);
		Product product = this.catalog.find(productId);
		BigDecimal total = product.price().multiply(BigDecimal.valueOf(quantity));
		// to the microsecond, as the database keeps it
		Instant placedAt = Instant.now().truncatedTo(ChronoUnit.MICROS);
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("""
				INSERT INTO customer_order (email, product_id, quantity, total, status, placed_at)
				VALUES (:email, :product, :quantity, :total, 'UNPAID', :placedAt)""")
			.param("email", email)
			.param("product", productId)
			.param("quantity", quantity)
			.param("total", total)
			.param("placedAt", placedAt)
			.update(key, "id");
		long id = key.getKeyAs(Long.class);
		// Both are written to the outbox with the order and relayed after the commit,
		// even
		// if Redis is away then; a rollback drops them: no invoice for an order that was
		// not saved, and no worker looking for an order it cannot read yet.
		this.dispatcher.dispatch(OrderJobs.SEND_INVOICE, new Invoice(id, email, total));
		this.dispatcher.schedule(OrderJobs.CANCEL_UNPAID_ORDER, id, placedAt.plus(PAYMENT_WINDOW));
		// Every order of this product writes its row: take the stock last, so that the
		// row stays locked the shortest time. Too few left rolls the order back, its jobs
		// too.
		int taken = this.jdbc.sql("UPDATE product SET stock = stock - :quantity WHERE id = :id AND stock >= :quantity")
			.param("quantity", quantity)
			.param("id", productId)
			.update();
		if (taken == 0) {
			throw new ConflictException("Fewer than " + quantity + " of product " + productId
					+ " are in stock: order fewer, or another product");
		}
		return new Order(id, email, productId, quantity, total, Status.UNPAID, placedAt);
	}

	/**
	 * Pay an order: its payment timer goes, and the partner is asked to ship it. Paying a
	 * paid order again changes nothing.
	 * @param id the order
	 * @return the order, paid
	 * @throws NoSuchElementException when there is no such order
	 * @throws ConflictException when the order was cancelled
	 */
	@Transactional
	public Order pay(long id) {
		int paid = this.jdbc.sql("UPDATE customer_order SET status = 'PAID' WHERE id = :id AND status = 'UNPAID'")
			.param("id", id)
			.update();
		Order order = find(id);
		if (paid == 1) {
			// both after the commit, in this order
			this.dispatcher.cancelTimer(OrderJobs.CANCEL_UNPAID_ORDER, id);
			this.dispatcher.dispatch(new Shipment(id));
		}
		else if (order.status() == Status.CANCELLED) {
			throw new ConflictException("Order " + id + " was cancelled: it was not paid within "
					+ PAYMENT_WINDOW.toMinutes() + " minutes. Place a new order");
		}
		return order;
	}

	/**
	 * Cancel an order if it is still unpaid, and put its items back in stock. The
	 * conditional update makes this happen once however often it is called, and never to
	 * an order paid meanwhile.
	 * @param id the order
	 * @return whether this call cancelled it
	 */
	@Transactional
	public boolean cancelIfUnpaid(long id) {
		int cancelled = this.jdbc
			.sql("UPDATE customer_order SET status = 'CANCELLED' WHERE id = :id AND status = 'UNPAID'")
			.param("id", id)
			.update();
		if (cancelled == 0) {
			return false;
		}
		this.jdbc.sql("""
				UPDATE product SET stock = stock + (SELECT quantity FROM customer_order WHERE id = :id)
				WHERE id = (SELECT product_id FROM customer_order WHERE id = :id)""").param("id", id).update();
		return true;
	}

	/**
	 * Remind a customer of their unpaid orders: the invoice of each again, as one batch
	 * whose callback mails the customer how many went out once every mail was sent or
	 * gave up. Not in a transaction: a batch is dispatched as it is called.
	 * @param email the customer's email
	 * @return the batch and how many orders it reminds of
	 * @throws ConflictException when the customer has no unpaid order
	 */
	public Reminders remind(String email) {
		Assert.hasText(email, "email is required");
		List<JobRequest> invoices = this.jdbc.sql("""
				SELECT id, total FROM customer_order WHERE email = :email AND status = 'UNPAID'
				ORDER BY id LIMIT :limit""")
			.param("email", email)
			.param("limit", MAX_REMINDED)
			.query((row, number) -> JobRequest
				.of(OrderJobs.SEND_INVOICE, new Invoice(row.getLong("id"), email, row.getBigDecimal("total")))
				.build())
			.list();
		if (invoices.isEmpty()) {
			throw new ConflictException(email + " has no unpaid order to be reminded of");
		}
		BatchResult batch = this.dispatcher.dispatchBatch(
				BatchRequest.of(invoices).onComplete(JobRequest.of(OrderJobs.REMINDERS_SENT, email).build()).build());
		return new Reminders(batch.batchId(), invoices.size());
	}

	/**
	 * Return an order.
	 * @param id the order's id
	 * @return the order
	 * @throws NoSuchElementException when there is none with that id
	 */
	public Order find(long id) {
		return this.jdbc.sql("""
				SELECT id, email, product_id, quantity, total, status, placed_at
				FROM customer_order WHERE id = :id""")
			.param("id", id)
			.query(Order.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("No order " + id));
	}

	/**
	 * The payment reminders sent to a customer.
	 *
	 * @param batchId the batch of their invoice mails
	 * @param orders how many unpaid orders it reminds of
	 */
	public record Reminders(String batchId, int orders) {
	}

}
