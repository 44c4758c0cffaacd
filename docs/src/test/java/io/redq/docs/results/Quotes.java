package io.redq.docs.results;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.redis.JobResults;

import org.springframework.stereotype.Service;

/**
 * The result examples of the Results page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
@Service
class Quotes {

	private final JobDispatcher dispatcher;

	private final JobResults results;

	private final Pricing pricing = (request) -> new Quote(request.sku(), BigDecimal.TEN);

	Quotes(JobDispatcher dispatcher, JobResults results) {
		this.dispatcher = dispatcher;
		this.results = results;
	}

	// tag::handler[]
	@QueuedJob(name = "quote", queue = "quotes")
	Quote quote(QuoteRequest request) {
		return this.pricing.quote(request);
	}
	// end::handler[]

	Quote ask(QuoteRequest request) {
		// tag::await[]
		DispatchResult quote = this.dispatcher.dispatch("quote", request);
		CompletableFuture<Quote> answer = this.results.await("quotes", quote.id(), Quote.class, Duration.ofSeconds(2));
		Quote result = answer.join();
		// end::await[]
		return result;
	}

	record QuoteRequest(String sku) {
	}

	record Quote(String sku, BigDecimal price) {
	}

	interface Pricing {

		Quote quote(QuoteRequest request);

	}

}
