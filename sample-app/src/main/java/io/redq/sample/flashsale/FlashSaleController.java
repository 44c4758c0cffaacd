package io.redq.sample.flashsale;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Flash sales over HTTP: a claim is answered at once with its job id, and decided in
 * line. Writes take JSON only, which a cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class FlashSaleController {

	private final FlashSale flashSale;

	public FlashSaleController(FlashSale flashSale) {
		this.flashSale = flashSale;
	}

	/**
	 * Put an item on sale, or restock it.
	 * @param sku the item
	 * @param request how many are for sale
	 * @return the sale
	 * @throws InterruptedException when interrupted while waiting for the sale's lock
	 */
	@PutMapping(path = "/flash-sales/{sku}", consumes = MediaType.APPLICATION_JSON_VALUE)
	public FlashSale.State open(@PathVariable String sku, @RequestBody Stock request) throws InterruptedException {
		this.flashSale.open(sku, request.stock());
		return this.flashSale.state(sku);
	}

	/**
	 * Return a sale: its stock and claims.
	 * @param sku the item
	 * @return the sale
	 */
	@GetMapping("/flash-sales/{sku}")
	public FlashSale.State state(@PathVariable String sku) {
		return this.flashSale.state(sku);
	}

	/**
	 * Claim an item. A buyer who claims twice gets one claim: the job id is theirs.
	 * @param sku the item
	 * @param request who claims it
	 * @return the claim's job id
	 */
	@PostMapping(path = "/flash-sales/{sku}/claims", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Claimed claim(@PathVariable String sku, @RequestBody Buyer request) {
		String id = this.flashSale.requestClaim(sku, request.buyer());
		return new Claimed(id);
	}

	/**
	 * A stock to set.
	 *
	 * @param stock how many are for sale
	 */
	public record Stock(int stock) {
	}

	/**
	 * A buyer.
	 *
	 * @param buyer who claims
	 */
	public record Buyer(String buyer) {
	}

	/**
	 * A claim, dispatched.
	 *
	 * @param jobId the claim's job id
	 */
	public record Claimed(String jobId) {
	}

}
