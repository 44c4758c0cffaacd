package io.redq.sample.catalog;

import java.math.BigDecimal;
import java.util.NoSuchElementException;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.Assert;

/**
 * The products, and their edits.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class Catalog {

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	private final SearchProperties properties;

	public Catalog(JdbcClient jdbc, JobDispatcher dispatcher, SearchProperties properties) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
		this.properties = properties;
	}

	/**
	 * Return a product.
	 * @param id the product's id
	 * @return the product
	 * @throws NoSuchElementException when there is none with that id
	 */
	public Product find(long id) {
		return this.jdbc.sql("SELECT id, name, price, stock FROM product WHERE id = :id")
			.param("id", id)
			.query(Product.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("No product " + id));
	}

	/**
	 * Change a product's name and price, and have it reindexed.
	 * @param id the product's id
	 * @param name the new name
	 * @param price the new price
	 * @return the product
	 * @throws NoSuchElementException when there is none with that id
	 */
	@Transactional
	public Product update(long id, String name, BigDecimal price) {
		Assert.hasText(name, "name is required");
		Assert.isTrue(price != null && price.signum() > 0, "price must be positive");
		int updated = this.jdbc.sql("UPDATE product SET name = :name, price = :price WHERE id = :id")
			.param("name", name)
			.param("price", price)
			.param("id", id)
			.update();
		if (updated == 0) {
			throw new NoSuchElementException("No product " + id);
		}
		// A burst of edits (a bulk price change, an import) reindexes once, a window
		// after the first edit, and the run reads what the product holds by then. Sent
		// after the commit, so that the run reads this edit.
		this.dispatcher.dispatch(JobRequest.of("reindex-product", id)
			.debounce("reindex-product-" + id, this.properties.reindexWindow())
			.build());
		return find(id);
	}

}
