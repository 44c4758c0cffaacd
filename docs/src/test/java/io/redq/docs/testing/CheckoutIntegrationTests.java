package io.redq.docs.testing;

// tag::class[]
import java.time.Duration;
import java.time.Instant;
// end::class[]

import io.redq.docs.testing.InvoiceJobs.Checkout;
import io.redq.docs.testing.InvoiceJobs.Invoice;
// tag::class[]
import io.redq.queue.testkit.CapturingJobDispatcher;
import io.redq.queue.testkit.RedisServerTestConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
// end::class[]

/**
 * The "Testing your jobs" example that captures dispatched jobs; the page quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@SpringBootTest(classes = InvoiceJobs.class, properties = "redq.listener.auto-startup=false")
@Import({ RedisServerTestConfiguration.class, CapturingJobDispatcher.class })
class CheckoutIntegrationTests {

	@Autowired
	private Checkout checkout;

	@Autowired
	private CapturingJobDispatcher dispatched;

	@BeforeEach
	void clear() {
		this.dispatched.clear();
	}

	@Test
	void placingAnOrderSendsTheInvoiceAndSetsAReminder() {
		Invoice invoice = new Invoice("INV-4", "ada@example.com");
		this.checkout.placeOrder(invoice);
		assertThat(this.dispatched.getJobs("send-invoice")).singleElement()
			.satisfies((job) -> assertThat(job.payload()).isEqualTo(invoice));
		assertThat(this.dispatched.getJobs("remind")).singleElement().satisfies((job) -> {
			assertThat(job.key()).isEqualTo("INV-4");
			assertThat(job.id()).isEqualTo("remind:INV-4");
			assertThat(Instant.ofEpochMilli(job.due().millis())).isAfter(Instant.now().plus(Duration.ofDays(13)));
		});
	}

}
// end::class[]
