package io.redq.sample.flashsale;

import io.redq.queue.annotation.QueuedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * The claims of a flash sale.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class FlashSaleJobs {

	private static final Log logger = LogFactory.getLog(FlashSaleJobs.class);

	private final FlashSale flashSale;

	public FlashSaleJobs(FlashSale flashSale) {
		this.flashSale = flashSale;
	}

	/**
	 * Decide one claim. At most one claim per item runs at a time across all instances
	 * ({@code exclusiveKey}); the others wait in Redis, in line, without holding a worker
	 * or using an attempt.
	 * @param claim who claims which item
	 * @throws InterruptedException when the shutdown interrupts the wait for the lock
	 */
	@QueuedJob(name = "claim-flash-item", queue = "flash-sale", exclusiveKey = "sku()")
	public void claim(Claim claim) throws InterruptedException {
		FlashSale.Outcome outcome = this.flashSale.claim(claim.sku(), claim.buyer());
		logger.info("Flash sale of " + claim.sku() + ": " + claim.buyer() + " " + outcome);
	}

}
