package io.redq.docs.testing;

// tag::class[]
import java.time.Duration;
import java.time.Instant;
// end::class[]

import io.redq.docs.testing.InvoiceJobs.Handlers;
import io.redq.docs.testing.InvoiceJobs.Invoice;
// tag::class[]
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.listener.JobContext;
import io.redq.queue.testkit.JobTester;
import io.redq.queue.testkit.RedisServerTestConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
// end::class[]

/**
 * The "Testing your jobs" example that runs jobs on a real Redis; the page quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@SpringBootTest(classes = InvoiceJobs.class)
@Import(RedisServerTestConfiguration.class)
class InvoiceJobsIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private Handlers handlers;

	private JobTester jobs;

	@BeforeEach
	void jobTester(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
	}

	@Test
	void sendsTheInvoice() {
		this.dispatcher.dispatch("send-invoice", new Invoice("INV-1", "ada@example.com"));
		this.jobs.awaitDrained(Duration.ofSeconds(10));
		assertThat(this.handlers.sent).contains("INV-1");
	}

	@Test
	void remindsWhenTheTimerIsDue() {
		this.dispatcher.schedule("remind", "INV-2", Instant.now().plus(Duration.ofDays(14)));
		this.jobs.makeTimerDue("remind", "INV-2");
		this.jobs.awaitDrained("mail", Duration.ofSeconds(10));
		assertThat(this.handlers.reminded).contains("INV-2");
	}

	@Test
	void runsTheHandlerOnTheTestsThread() throws Exception {
		JobContext context = this.jobs.run("send-invoice", new Invoice("INV-3", "grace@example.com"));
		assertThat(this.handlers.sent).contains("INV-3");
		assertThat(context.getAttempt()).isEqualTo(1);
	}

}
// end::class[]
