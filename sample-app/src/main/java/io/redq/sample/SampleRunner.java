package io.redq.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Dispatches a few jobs at startup, one for each way of dispatching.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class SampleRunner implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(SampleRunner.class);

	private final JobDispatcher dispatcher;

	public SampleRunner(JobDispatcher dispatcher) {
		this.dispatcher = dispatcher;
	}

	@Override
	public void run(ApplicationArguments args) {
		// now, by job name
		DispatchResult result = this.dispatcher.dispatch("send-invoice",
				new Invoice("INV-1", "ada@example.com", new BigDecimal("120.00")));
		logger.info("Dispatched send-invoice as job " + result.id() + ": " + result.outcome());

		// now, by payload type: send-invoice is the only job that takes an Invoice
		this.dispatcher.dispatch(new Invoice(SampleJobs.FLAKY_INVOICE, "bob@example.com", new BigDecimal("15.50")));

		// after a delay (measured on the Redis clock)
		this.dispatcher
			.dispatch(JobRequest.of("send-reminder", "ada@example.com").delay(Duration.ofSeconds(2)).build());

		// a timer keyed by a business id (job id close-auction:42): it can be moved,
		// cancelled or looked up by that key
		DispatchResult timer = this.dispatcher.schedule("close-auction", 42L,
				Instant.now().plus(Duration.ofMinutes(10)));
		if (this.dispatcher.reschedule("close-auction", 42L, Instant.now().plusSeconds(3))) {
			logger.info("Timer " + timer.id() + " moved: auction 42 closes in 3 seconds, not 10 minutes");
		}
		else {
			logger.info("Timer " + timer.id() + " was no longer pending: it was not moved");
		}

		// deduplication: while invoice-INV-2 is pending or running, a second dispatch
		// with that id is dropped (KEEP)
		Invoice invoice = new Invoice("INV-2", "carol@example.com", new BigDecimal("99.90"));
		this.dispatcher
			.dispatch(JobRequest.of("send-invoice", invoice).id("invoice-INV-2").delay(Duration.ofSeconds(1)).build());
		DispatchResult again = this.dispatcher
			.dispatch(JobRequest.of("send-invoice", invoice).id("invoice-INV-2").build());
		logger.info("Dispatched invoice-INV-2 again: " + again.outcome());

		// many at once, in one round trip per queue
		List<DispatchResult> batch = this.dispatcher.dispatchAll(List.of(
				JobRequest.of("send-invoice", new Invoice("INV-3", "dan@example.com", new BigDecimal("10.00"))).build(),
				JobRequest.of("send-invoice", new Invoice("INV-4", "eve@example.com", new BigDecimal("20.00")))
					.header("tenant", "acme")
					.build()));
		logger.info("Dispatched " + batch.size() + " invoices in one batch: " + batch);

		// bad data: the handler rejects it and the job goes to dead without retries
		this.dispatcher.dispatch("send-invoice", new Invoice("INV-BAD", "mallory@example.com", new BigDecimal("-1")));

		// a pending job can be cancelled by its queue and id
		this.dispatcher.dispatch(JobRequest.of("send-reminder", "frank@example.com")
			.id("reminder-frank")
			.delay(Duration.ofHours(1))
			.build());
		boolean cancelled = this.dispatcher.cancel("mail", "reminder-frank");
		logger.info("Cancelled reminder-frank: " + cancelled);

		// a job that another application handles (see redq.remote-jobs.generate-report in
		// application.yml)
		this.dispatcher.dispatch("generate-report", "2025-Q4");
		logger.info("Dispatched generate-report to queue 'reports' for another application to handle");
	}

}
