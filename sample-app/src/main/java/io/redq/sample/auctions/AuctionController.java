package io.redq.sample.auctions;

import java.math.BigDecimal;
import java.time.Duration;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Auctions over HTTP. Writes take JSON only, which a cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class AuctionController {

	private final AuctionService auctions;

	public AuctionController(AuctionService auctions) {
		this.auctions = auctions;
	}

	/**
	 * Open an auction.
	 * @param request what is sold and for how long
	 * @return the auction
	 */
	@PostMapping(path = "/auctions", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.CREATED)
	public Auction open(@RequestBody NewAuction request) {
		return this.auctions.open(request.item(), request.duration());
	}

	/**
	 * Return an auction.
	 * @param id the auction's id
	 * @return the auction
	 */
	@GetMapping("/auctions/{id}")
	public Auction auction(@PathVariable long id) {
		return this.auctions.find(id);
	}

	/**
	 * Bid on an auction.
	 * @param id the auction's id
	 * @param request who bids how much
	 * @return the auction
	 */
	@PostMapping(path = "/auctions/{id}/bids", consumes = MediaType.APPLICATION_JSON_VALUE)
	public Auction bid(@PathVariable long id, @RequestBody Bid request) {
		return this.auctions.bid(id, request.bidder(), request.amount());
	}

	/**
	 * An auction to open.
	 *
	 * @param item what is sold
	 * @param duration how long it takes bids, e.g. {@code "PT2M"}
	 */
	public record NewAuction(String item, Duration duration) {
	}

	/**
	 * A bid.
	 *
	 * @param bidder who bids
	 * @param amount how much
	 */
	public record Bid(String bidder, BigDecimal amount) {
	}

}
