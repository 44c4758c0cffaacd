package io.redq.sample.catalog;

import java.math.BigDecimal;
import java.time.Duration;

import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import io.redq.sample.SentJobs;
import io.redq.sample.TestProducts;
import io.redq.sample.catalog.SearchIndex.IndexEntry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search index: a burst of edits of a product reindexes it once, with its last edit.
 *
 * @author Redq team
 */
@SampleShopTest
class SearchIntegrationTests {

	@Autowired
	private Catalog catalog;

	@Autowired
	private SearchIndex searchIndex;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private SentJobs sent;

	@Test
	void aBurstOfEditsReindexesOnce(@Autowired ApplicationContext context) {
		long product = TestProducts.add(this.jdbc, 1);
		long before = this.sent.count("reindex-product");
		for (int edit = 1; edit <= 10; edit++) {
			this.catalog.update(product, "Desk lamp, edit " + edit, new BigDecimal("35.00"));
		}
		// each edit's dispatch is written to the outbox at its commit and sent by the
		// relay: one that came after the run below would start the window again
		// (redq.jobs.dispatched counts the one job, not the nine dispatches that moved
		// its
		// window)
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> this.sent.count("reindex-product") >= before + 10);
		// the window ends now rather than in a minute (the tests'
		// sample.search.reindex-window)
		JobTester jobs = JobTester.of(context);
		jobs.makeDue("search", "reindex-product-" + product);
		jobs.awaitCompleted("search", "reindex-product-" + product, Duration.ofSeconds(30));
		assertThat(this.searchIndex.find(product)).isEqualTo(new IndexEntry("Desk lamp, edit 10", 1));
	}

}
