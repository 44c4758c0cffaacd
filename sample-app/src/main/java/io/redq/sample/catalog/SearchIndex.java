package io.redq.sample.catalog;

import io.redq.queue.annotation.QueuedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * A stand-in for a search engine: the {@code search_index} table, written by the
 * debounced {@code reindex-product} job.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class SearchIndex {

	private static final Log logger = LogFactory.getLog(SearchIndex.class);

	private final Catalog catalog;

	private final JdbcClient jdbc;

	public SearchIndex(Catalog catalog, JdbcClient jdbc) {
		this.catalog = catalog;
		this.jdbc = jdbc;
	}

	/**
	 * Index a product as it is now; the payload is its id only, so that a run always
	 * indexes the latest edit.
	 * @param productId the product
	 */
	@QueuedJob(name = "reindex-product", queue = "search")
	public void reindex(long productId) {
		Product product = this.catalog.find(productId);
		int updated = this.jdbc.sql("UPDATE search_index SET name = :name, runs = runs + 1 WHERE product_id = :id")
			.param("name", product.name())
			.param("id", productId)
			.update();
		if (updated == 0) {
			this.jdbc.sql("INSERT INTO search_index (product_id, name, runs) VALUES (:id, :name, 1)")
				.param("id", productId)
				.param("name", product.name())
				.update();
		}
		logger.info("Reindexed product " + productId + ": " + product.name());
	}

	/**
	 * Return what the index holds for a product.
	 * @param productId the product
	 * @return the indexed name and how many times the product was indexed, or
	 * {@code null} when it never was
	 */
	public @Nullable IndexEntry find(long productId) {
		return this.jdbc.sql("SELECT name, runs FROM search_index WHERE product_id = :id")
			.param("id", productId)
			.query(IndexEntry.class)
			.optional()
			.orElse(null);
	}

	/**
	 * What the search index holds for a product.
	 *
	 * @param name the indexed name
	 * @param runs how many times the product was indexed
	 */
	public record IndexEntry(String name, int runs) {
	}

}
