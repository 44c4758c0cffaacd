package io.redq.sample.auctions;

import io.redq.queue.annotation.QueuedJob;

import org.springframework.stereotype.Component;

/**
 * The timer of an auction's end.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class AuctionJobs {

	private final AuctionService auctions;

	public AuctionJobs(AuctionService auctions) {
		this.auctions = auctions;
	}

	/**
	 * Close an auction: a timer set with {@code JobDispatcher.schedule}, keyed by the
	 * auction id (job id {@code close-auction:42}), so that a late bid can move it.
	 * @param auctionId the auction
	 */
	@QueuedJob(name = AuctionService.CLOSE_AUCTION, queue = "auctions")
	public void closeAuction(long auctionId) {
		this.auctions.close(auctionId);
	}

}
