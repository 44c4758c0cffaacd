package io.redq.docs.locks;

import java.time.Duration;

import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * The lock example of the Locks page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@Service
class FlashSale {

	private final RedisLockService locks;

	private final StringRedisTemplate redis;

	FlashSale(RedisLockService locks, StringRedisTemplate redis) {
		this.locks = locks;
		this.redis = redis;
	}

	boolean buy(String sku, String buyer) throws InterruptedException {
		try (LockHandle lock = this.locks.tryAcquire("flash-sale:" + sku, Duration.ofSeconds(2))) {
			if (lock == null) {
				return false; // busy for the whole wait: ask the buyer to try again
			}
			int stock = Integer.parseInt(this.redis.opsForValue().get("stock:" + sku));
			if (stock == 0) {
				return false;
			}
			this.redis.opsForValue().set("stock:" + sku, Integer.toString(stock - 1));
			this.redis.opsForList().rightPush("orders:" + sku, buyer);
			return true;
		}
	}

}
// end::class[]
