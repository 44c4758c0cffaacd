package io.redq.sample.auctions;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.NoSuchElementException;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.Uniqueness;
import io.redq.sample.ConflictException;
import io.redq.sample.auctions.Auction.Status;
import io.redq.sample.mail.Mailer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.Assert;

/**
 * Opens auctions, takes bids and closes them when their timer fires.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class AuctionService {

	/** The job of an auction's end, a timer keyed by the auction id. */
	public static final String CLOSE_AUCTION = "close-auction";

	/** A bid this close to the end pushes the end back to this long after the bid. */
	public static final Duration ANTI_SNIPING = Duration.ofSeconds(10);

	/** The longest an auction may run. */
	static final Duration MAX_DURATION = Duration.ofDays(30);

	private static final Log logger = LogFactory.getLog(AuctionService.class);

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	private final Mailer mailer;

	public AuctionService(JdbcClient jdbc, JobDispatcher dispatcher, Mailer mailer) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
		this.mailer = mailer;
	}

	/**
	 * Open an auction and set the timer of its end.
	 * @param item what is sold
	 * @param duration how long it takes bids
	 * @return the auction
	 */
	@Transactional
	public Auction open(String item, Duration duration) {
		Assert.hasText(item, "item is required");
		Assert.isTrue(
				duration != null && duration.compareTo(Duration.ZERO) > 0 && duration.compareTo(MAX_DURATION) <= 0,
				() -> "duration must be positive and at most " + MAX_DURATION + ", but was " + duration);
		Instant endsAt = Instant.now().plus(duration);
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO auction (item, ends_at, status) VALUES (:item, :endsAt, 'OPEN')")
			.param("item", item)
			.param("endsAt", endsAt)
			.update(key, "id");
		long id = key.getKeyAs(Long.class);
		this.dispatcher.schedule(CLOSE_AUCTION, id, endsAt);
		return find(id);
	}

	/**
	 * Bid on an open auction; a bid in its last {@link #ANTI_SNIPING} seconds pushes its
	 * end back, so that the others can answer.
	 * @param id the auction
	 * @param bidder who bids
	 * @param amount the bid, above the highest one
	 * @return the auction
	 * @throws ConflictException when the auction has ended or the bid is too low
	 */
	@Transactional
	public Auction bid(long id, String bidder, BigDecimal amount) {
		Assert.hasText(bidder, "bidder is required");
		Assert.isTrue(amount != null && amount.signum() > 0, "amount must be positive");
		Instant now = Instant.now();
		Auction auction = find(id);
		if (auction.status() != Status.OPEN || !now.isBefore(auction.endsAt())) {
			throw new ConflictException("Auction " + id + " has ended");
		}
		if (auction.highestBid() != null && amount.compareTo(auction.highestBid()) <= 0) {
			throw new ConflictException("A bid on auction " + id + " must be above " + auction.highestBid());
		}
		Instant endsAt = auction.endsAt();
		if (now.plus(ANTI_SNIPING).isAfter(endsAt)) {
			endsAt = now.plus(ANTI_SNIPING);
		}
		// The conditions again, in the update: a bid or the close that committed since
		// the read above wins, and this bid is refused instead of overwriting it.
		int placed = this.jdbc.sql("""
				UPDATE auction SET highest_bid = :amount, highest_bidder = :bidder, ends_at = :endsAt
				WHERE id = :id AND status = 'OPEN' AND ends_at > :now
				AND (highest_bid IS NULL OR highest_bid < :amount)""")
			.param("amount", amount)
			.param("bidder", bidder)
			.param("endsAt", endsAt)
			.param("id", id)
			.param("now", now)
			.update();
		if (placed == 0) {
			throw new ConflictException("Auction " + id + " took another bid or ended meanwhile: look again");
		}
		if (!endsAt.equals(auction.endsAt())) {
			// After the commit. A timer that fires meanwhile finds the new end and sets
			// itself again (see close).
			this.dispatcher.reschedule(CLOSE_AUCTION, id, endsAt);
		}
		return find(id);
	}

	/**
	 * Close an auction whose end has come, once: the conditional update closes it and
	 * tells the winner in one transaction, and does nothing to a closed auction. Called
	 * before the end (a bid moved it after the timer fired), it sets the timer again for
	 * the new end instead.
	 * @param id the auction
	 */
	@Transactional
	public void close(long id) {
		Instant now = Instant.now();
		int closed = this.jdbc.sql("""
				UPDATE auction SET status = 'CLOSED', closed_at = :now
				WHERE id = :id AND status = 'OPEN' AND ends_at <= :now""").param("now", now).param("id", id).update();
		Auction auction = find(id);
		if (closed == 1) {
			if (auction.highestBidder() != null) {
				this.mailer.send("auction-won-" + id, auction.highestBidder(),
						"You won " + auction.item() + " for " + auction.highestBid());
			}
			logger.info("Closed auction " + id + ": " + ((auction.highestBidder() != null)
					? "won by " + auction.highestBidder() + " for " + auction.highestBid() : "no bids"));
		}
		else if (auction.status() == Status.OPEN) {
			// This very timer runs, so a plain schedule would be dropped: UNTIL_STARTED
			// queues the new one behind it.
			this.dispatcher.dispatch(JobRequest.of(CLOSE_AUCTION, id)
				.id(CLOSE_AUCTION + ":" + id, DuplicatePolicy.REPLACE)
				.unique(Uniqueness.UNTIL_STARTED)
				.at(auction.endsAt())
				.build());
			logger.info("Auction " + id + " ends later, at " + auction.endsAt() + ": its timer is set again");
		}
	}

	/**
	 * Return an auction.
	 * @param id the auction's id
	 * @return the auction
	 * @throws NoSuchElementException when there is none with that id
	 */
	public Auction find(long id) {
		return this.jdbc.sql("""
				SELECT id, item, ends_at, status, highest_bid, highest_bidder, closed_at
				FROM auction WHERE id = :id""")
			.param("id", id)
			.query(Auction.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("No auction " + id));
	}

}
