package io.redq.sample.orders;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.Timer;
import io.redq.queue.test.RedisServerInitializer;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.OutboxRows;
import io.redq.sample.SampleShopTest;
import io.redq.sample.TestProducts;
import io.redq.sample.orders.Order.Status;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Orders: the invoice and the payment timer go through the outbox with the transaction,
 * paying cancels the timer, and an unpaid order is cancelled exactly once.
 *
 * @author Redq team
 */
@SampleShopTest
class OrdersIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JobQueueOperations operations;

	@LocalServerPort
	private int port;

	private JobTester jobs;

	private RestTestClient http;

	@BeforeEach
	void setUp(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
		this.http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
	}

	@Test
	void placingAnOrderSendsTheInvoiceAfterTheCommitAndSetsThePaymentTimer() {
		long product = TestProducts.add(this.jdbc, 10);
		Order order = place("ada@orders.example", product, 2);
		assertThat(order.status()).isEqualTo(Status.UNPAID);
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(8);
		this.jobs.awaitDrained("mail", DEADLINE);
		assertThat(mailsTo("ada@orders.example")).contains("Invoice for order " + order.id() + ": 20.00");
		Timer timer = this.dispatcher.findTimer(OrderJobs.CANCEL_UNPAID_ORDER, order.id()).orElseThrow();
		assertThat(timer.dueAt())
			.isEqualTo(order.placedAt().plus(OrderService.PAYMENT_WINDOW).truncatedTo(ChronoUnit.MILLIS));
		assertThat(OutboxRows.count(this.jdbc)).isZero();
	}

	@Test
	void anOrderPlacedWhileRedisDoesNotAnswerIsSentOnceItDoes() {
		long product = TestProducts.add(this.jdbc, 10);
		// the order commits without Redis: its jobs wait in the outbox meanwhile
		RedisServerInitializer.sharedServer().command("CLIENT", "PAUSE", "3000", "WRITE");
		Order order = place("gus@orders.example", product, 1);
		assertThat(OutboxRows.count(this.jdbc)).isPositive();
		this.jobs.awaitDrained("mail", DEADLINE);
		assertThat(mailsTo("gus@orders.example")).containsExactly("Invoice for order " + order.id() + ": 10.00");
		assertThat(this.dispatcher.findTimer(OrderJobs.CANCEL_UNPAID_ORDER, order.id())).isPresent();
		assertThat(OutboxRows.count(this.jdbc)).isZero();
	}

	@Test
	void anOrderThatRollsBackSendsNothing() {
		long product = TestProducts.add(this.jdbc, 2);
		long timers = this.operations.stats("orders").delayed();
		this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "bob@orders.example", "productId", product, "quantity", 3))
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.CONFLICT)
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("Fewer than 3 of product " + product + " are in stock: order fewer, or another product");
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(2);
		// the invoice and the timer were dispatched before the stock ran short, and
		// dropped with the rollback: the outbox has no row of them
		assertThat(OutboxRows.count(this.jdbc)).isZero();
		this.jobs.awaitDrained("mail", DEADLINE);
		assertThat(this.operations.stats("orders").delayed()).isEqualTo(timers);
		assertThat(mailsTo("bob@orders.example")).isEmpty();
	}

	@Test
	void payingCancelsTheTimerAndShips() {
		Order order = place("carol@orders.example", TestProducts.add(this.jdbc, 10), 1);
		for (int i = 0; i < 2; i++) {
			// paying twice changes nothing
			this.http.put()
				.uri("/orders/{id}/payment", order.id())
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo("PAID");
		}
		// the cancel is in Redis once the relay sent it, with the shipment
		this.jobs.awaitDrained("partners", DEADLINE);
		assertThat(this.dispatcher.findTimer(OrderJobs.CANCEL_UNPAID_ORDER, order.id())).isEmpty();
		assertThat(this.jdbc.sql("SELECT COUNT(*) FROM partner_call WHERE order_id = :id")
			.param("id", order.id())
			.query(Long.class)
			.single()).isOne();
	}

	@Test
	void anUnpaidOrderIsCancelledExactlyOnce() throws Exception {
		long product = TestProducts.add(this.jdbc, 10);
		Order order = place("dan@orders.example", product, 3);
		// instead of waiting 30 minutes
		this.jobs.makeTimerDue(OrderJobs.CANCEL_UNPAID_ORDER, order.id());
		this.jobs.awaitCompleted("orders", OrderJobs.CANCEL_UNPAID_ORDER + ":" + order.id(), DEADLINE);
		assertThat(status(order.id())).isEqualTo(Status.CANCELLED);
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(10);
		// the timer runs again, as after a worker died before its acknowledgement
		this.jobs.run(OrderJobs.CANCEL_UNPAID_ORDER, order.id());
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(10);
		this.http.put()
			.uri("/orders/{id}/payment", order.id())
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.CONFLICT)
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("Order " + order.id() + " was cancelled: it was not paid within 30 minutes. Place a new order");
	}

	@Test
	void aPaidOrderIsNotCancelled() throws Exception {
		long product = TestProducts.add(this.jdbc, 10);
		Order order = place("eve@orders.example", product, 1);
		this.http.put().uri("/orders/{id}/payment", order.id()).exchange().expectStatus().isOk();
		// a timer that fires as the payment commits
		this.jobs.run(OrderJobs.CANCEL_UNPAID_ORDER, order.id());
		assertThat(status(order.id())).isEqualTo(Status.PAID);
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(9);
	}

	@Test
	void badInputIsRefusedWithWhatWasWrong() {
		long product = TestProducts.add(this.jdbc, 10);
		this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "fay@orders.example", "productId", product, "quantity", 0))
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("quantity must be between 1 and 100, but was 0");
		this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "fay@orders.example", "productId", -1, "quantity", 1))
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("No product -1");
		// a form, as another site could make a visitor's browser post, is refused
		this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("email=fay@orders.example&productId=" + product + "&quantity=1")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.UNSUPPORTED_MEDIA_TYPE);
		assertThat(TestProducts.stock(this.jdbc, product)).isEqualTo(10);
	}

	@Test
	void remindingACustomerSendsTheirUnpaidInvoicesAsABatchWhoseCallbackMailsThemOnce() {
		long product = TestProducts.add(this.jdbc, 10);
		Order first = place("cy@orders.example", product, 1);
		Order second = place("cy@orders.example", product, 2);
		OrderService.Reminders reminders = this.http.put()
			.uri("/orders/reminders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "cy@orders.example"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(OrderService.Reminders.class)
			.returnResult()
			.getResponseBody();
		assertThat(reminders.orders()).isEqualTo(2);
		Awaitility.await()
			.atMost(DEADLINE)
			.until(() -> mailsTo("cy@orders.example").contains("Payment reminders: 2 of 2 sent"));
		this.jobs.awaitDrained("mail", DEADLINE);
		assertThat(mailsTo("cy@orders.example")).containsExactlyInAnyOrder(
				"Invoice for order " + first.id() + ": 10.00", "Invoice for order " + second.id() + ": 20.00",
				"Invoice for order " + first.id() + ": 10.00", "Invoice for order " + second.id() + ": 20.00",
				"Payment reminders: 2 of 2 sent");
	}

	@Test
	void remindingACustomerWithoutUnpaidOrdersIsRefused() {
		this.http.put()
			.uri("/orders/reminders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "dee@orders.example"))
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.CONFLICT);
	}

	private Order place(String email, long product, int quantity) {
		return this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", email, "productId", product, "quantity", quantity))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectBody(Order.class)
			.returnResult()
			.getResponseBody();
	}

	private Status status(long id) {
		return this.jdbc.sql("SELECT status FROM customer_order WHERE id = :id")
			.param("id", id)
			.query(Status.class)
			.single();
	}

	private List<String> mailsTo(String recipient) {
		return this.jdbc.sql("SELECT subject FROM sent_mail WHERE recipient = :recipient")
			.param("recipient", recipient)
			.query(String.class)
			.list();
	}

}
