package io.redq.sample.exports;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import io.redq.queue.core.JobStatus;
import io.redq.sample.SampleShopTest;
import io.redq.sample.TestProducts;
import io.redq.sample.exports.ExportController.NewExport;
import io.redq.sample.orders.OrderService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exports of a customer's orders: progress while they run, a result to wait for, and an
 * attempt that goes on where the one before stopped.
 *
 * @author Redq team
 */
@SampleShopTest
class OrderExportsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private OrderService orders;

	@Autowired
	private OrderExports exports;

	@Autowired
	private JdbcClient jdbc;

	@LocalServerPort
	private int port;

	private RestTestClient http;

	@BeforeEach
	void setUp() {
		this.http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
	}

	@Test
	void anExportShowsItsProgressWhileItRunsAndItsResultOnceItCompleted() {
		// 40 orders of 50 ms each: the export runs for 2 s at least
		List<Long> placed = place("ada@exports.example", 40);
		NewExport started = this.http.post()
			.uri("/exports")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"email\": \"ada@exports.example\"}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody(NewExport.class)
			.returnResult()
			.getResponseBody();
		assertThat(started.location()).isEqualTo("/exports/" + started.id());
		AtomicReference<ExportView> running = new AtomicReference<>();
		await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
			ExportView view = view(started.id(), "0s");
			assertThat(view.state()).isEqualTo(JobStatus.State.RESERVED);
			assertThat(view.progress()).isNotNull();
			running.set(view);
		});
		assertThat(running.get().progress()).isBetween(1.0 / 40, 1.0);
		assertThat(running.get().message()).startsWith("exported order ");
		assertThat(running.get().result()).isNull();
		ExportView done = view(started.id(), "30s");
		assertThat(done.state()).isEqualTo(JobStatus.State.COMPLETED);
		assertThat(done.result()).isEqualTo(new OrderExport("ada@exports.example", 40, new BigDecimal("400.00")));
		assertThat(this.exports.lines(started.id())).extracting(OrderExports.Line::orderId)
			.containsExactlyElementsOf(placed);
	}

	@Test
	void anAttemptThatFailedHalfwayIsFollowedByOneThatGoesOnAfterTheLastOrderItExported() throws Exception {
		List<Long> placed = place("flaky-bob@exports.example", 6);
		String id = this.exports.start("flaky-bob@exports.example");
		ExportView done = this.exports.find(id, OrderExports.MAX_WAIT);
		assertThat(done.result()).isEqualTo(new OrderExport("flaky-bob@exports.example", 6, new BigDecimal("60.00")));
		// the first attempt wrote the first half; the second wrote the rest and none
		// again
		assertThat(this.exports.lines(id)).extracting(OrderExports.Line::orderId).containsExactlyElementsOf(placed);
		assertThat(this.exports.lines(id)).extracting(OrderExports.Line::attempt).containsExactly(1, 1, 1, 2, 2, 2);
	}

	@Test
	void badRequestsAreRefusedWithWhatWasWrong() {
		this.http.post()
			.uri("/exports")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"email\": \" \"}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("email is required");
		this.http.get()
			.uri("/exports/{id}?wait=soon", "x")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("wait must be a duration such as 2s or 500ms, but was 'soon'");
		this.http.get()
			.uri("/exports/{id}?wait=1m", "x")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("wait must be between 0s and 30s, but was 60000ms");
		this.http.get().uri("/exports/{id}", "no-such-export").exchange().expectStatus().isNotFound();
	}

	private List<Long> place(String email, int count) {
		long product = TestProducts.add(this.jdbc, count);
		return IntStream.range(0, count).mapToObj((i) -> this.orders.place(email, product, 1).id()).toList();
	}

	private ExportView view(String id, String wait) {
		return this.http.get()
			.uri("/exports/{id}?wait={wait}", id, wait)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(ExportView.class)
			.returnResult()
			.getResponseBody();
	}

}
