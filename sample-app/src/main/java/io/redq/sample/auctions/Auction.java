package io.redq.sample.auctions;

import java.math.BigDecimal;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * An auction.
 *
 * @param id its id
 * @param item what is sold
 * @param endsAt when bidding ends
 * @param status whether it is open
 * @param highestBid the highest bid so far, {@code null} before the first
 * @param highestBidder who made it
 * @param closedAt when it was closed, {@code null} while it is open
 * @author Redq team
 * @since 0.1.0
 */
public record Auction(long id, String item, Instant endsAt, Status status, @Nullable BigDecimal highestBid,
		@Nullable String highestBidder, @Nullable Instant closedAt) {

	/**
	 * Whether an auction takes bids.
	 */
	public enum Status {

		/** Takes bids until it ends. */
		OPEN,

		/** Ended; the highest bidder won. */
		CLOSED

	}

}
