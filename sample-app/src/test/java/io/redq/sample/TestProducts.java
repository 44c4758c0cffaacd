package io.redq.sample;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Products of a test's own, so that no other test changes their stock.
 *
 * @author Redq team
 */
public final class TestProducts {

	private static final AtomicLong ids = new AtomicLong(1000);

	private TestProducts() {
	}

	/**
	 * Add a product at 10.00.
	 * @param jdbc the shop's database
	 * @param stock how many are in stock
	 * @return the product's id
	 */
	public static long add(JdbcClient jdbc, int stock) {
		long id = ids.incrementAndGet();
		jdbc.sql("INSERT INTO product (id, name, price, stock) VALUES (:id, :name, 10.00, :stock)")
			.param("id", id)
			.param("name", "Test product " + id)
			.param("stock", stock)
			.update();
		return id;
	}

	/**
	 * Return how many of a product are in stock.
	 * @param jdbc the shop's database
	 * @param id the product's id
	 * @return its stock
	 */
	public static int stock(JdbcClient jdbc, long id) {
		return jdbc.sql("SELECT stock FROM product WHERE id = :id").param("id", id).query(Integer.class).single();
	}

}
