package io.redq.docs.locks;

import java.time.Duration;

import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fencing token example of the Locks page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
class FencedStock {

	private final RedisLockService locks;

	private final Products products;

	private final JdbcClient jdbc;

	FencedStock(RedisLockService locks, Products products, JdbcClient jdbc) {
		this.locks = locks;
		this.products = products;
		this.jdbc = jdbc;
	}

	boolean sell(long id) throws InterruptedException {
		// tag::fencing[]
		try (LockHandle lock = this.locks.tryAcquire("product:" + id, Duration.ofSeconds(2))) {
			if (lock == null) {
				return false;
			}
			int stock = this.products.stock(id);
			int updated = this.jdbc.sql("""
					UPDATE product SET stock = :stock, last_token = :token
					WHERE id = :id AND last_token < :token""")
				.param("stock", stock - 1)
				.param("token", lock.getFencingToken())
				.param("id", id)
				.update();
			if (updated == 0) {
				// a newer holder wrote: this one lost the lock; its work is void
				throw new IllegalStateException("Lost the lock of product " + id);
			}
			return true;
		}
		// end::fencing[]
	}

	interface Products {

		int stock(long id);

	}

}
