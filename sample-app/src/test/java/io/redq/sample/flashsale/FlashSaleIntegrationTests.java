package io.redq.sample.flashsale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flash sale: a burst of concurrent buyers never gets more items than there are.
 *
 * @author Redq team
 */
@SampleShopTest
class FlashSaleIntegrationTests {

	private static final int ITEMS = 10;

	private static final int BUYERS = 50;

	@Autowired
	private FlashSale flashSale;

	@LocalServerPort
	private int port;

	@Test
	void aBurstOfBuyersGetsExactlyTheItemsOnSale(@Autowired ApplicationContext context) throws Exception {
		RestTestClient http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
		String sku = "phone-" + System.nanoTime();
		http.put()
			.uri("/flash-sales/{sku}", sku)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("stock", ITEMS))
			.exchange()
			.expectStatus()
			.isOk();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService buyers = Executors.newFixedThreadPool(BUYERS);
		try {
			List<Future<?>> claims = new ArrayList<>();
			for (int i = 0; i < BUYERS; i++) {
				String buyer = "buyer-" + i + "@flashsale.example";
				claims.add(buyers.submit(() -> {
					start.await();
					// and twice each: a double click is one claim
					for (int click = 0; click < 2; click++) {
						http.post()
							.uri("/flash-sales/{sku}/claims", sku)
							.contentType(MediaType.APPLICATION_JSON)
							.body(Map.of("buyer", buyer))
							.exchange()
							.expectStatus()
							.isAccepted();
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> claim : claims) {
				claim.get();
			}
		}
		finally {
			buyers.shutdownNow();
		}
		JobTester.of(context).awaitDrained("flash-sale", Duration.ofSeconds(60));
		assertThat(this.flashSale.state(sku)).isEqualTo(new FlashSale.State(sku, 0, ITEMS, BUYERS - ITEMS));
	}

	@Test
	void aClaimOnNoSaleIsRefused() {
		RestTestClient http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
		http.post()
			.uri("/flash-sales/{sku}/claims", "nothing-on-sale")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("buyer", "ada@flashsale.example"))
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("No flash sale of nothing-on-sale");
	}

}
