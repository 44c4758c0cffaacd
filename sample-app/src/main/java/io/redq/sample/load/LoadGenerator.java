package io.redq.sample.load;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

import io.redq.sample.auctions.Auction;
import io.redq.sample.auctions.AuctionService;
import io.redq.sample.catalog.Catalog;
import io.redq.sample.catalog.Product;
import io.redq.sample.flashsale.FlashSale;
import io.redq.sample.images.Images;
import io.redq.sample.exports.OrderExports;
import io.redq.sample.imports.ContactImports;
import io.redq.sample.mail.MailJobs;
import io.redq.sample.orders.Order;
import io.redq.sample.orders.OrderService;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Runs the shop's flows at a steady rate, through the same services as the web requests,
 * every tenth of a second on one thread. Spring stops its ticks when the application
 * context closes, before the listener containers stop.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class LoadGenerator {

	/** The flash sale the generator claims from. */
	static final String DEAL = "deal-of-the-day";

	private static final Log logger = LogFactory.getLog(LoadGenerator.class);

	private static final Duration WARNING_INTERVAL = Duration.ofSeconds(10);

	private final Map<LoadKind, Integer> mix;

	/** Each kind as often as its weight, to draw from. */
	private final List<LoadKind> draw = new ArrayList<>();

	private final Map<LoadKind, LongAdder> steps = new EnumMap<>(LoadKind.class);

	private final Map<LoadKind, LongAdder> failures = new EnumMap<>(LoadKind.class);

	private final OrderService orders;

	private final AuctionService auctions;

	private final Images images;

	private final Catalog catalog;

	private final MailJobs mail;

	private final ContactImports imports;

	private final FlashSale flashSale;

	private final OrderExports exports;

	private volatile int rate;

	// the fields below are touched by the scheduler's thread only

	/** Steps due and not run yet. */
	private double owed;

	private long sequence;

	private @Nullable Long auctionId;

	private long lastWarning = System.nanoTime() - WARNING_INTERVAL.toNanos();

	public LoadGenerator(LoadProperties properties, OrderService orders, AuctionService auctions, Images images,
			Catalog catalog, MailJobs mail, ContactImports imports, FlashSale flashSale, OrderExports exports) {
		this.rate = properties.rate();
		this.mix = properties.mix();
		this.mix.forEach((kind, weight) -> this.draw.addAll(Collections.nCopies(weight, kind)));
		for (LoadKind kind : LoadKind.values()) {
			this.steps.put(kind, new LongAdder());
			this.failures.put(kind, new LongAdder());
		}
		this.orders = orders;
		this.auctions = auctions;
		this.images = images;
		this.catalog = catalog;
		this.mail = mail;
		this.imports = imports;
		this.flashSale = flashSale;
		this.exports = exports;
	}

	/**
	 * Set the rate.
	 * @param rate steps per second, from 0 (off) to {@value LoadProperties#MAX_RATE}
	 */
	public void setRate(int rate) {
		this.rate = LoadProperties.checkRate(rate);
		logger.info("Load generator at " + rate + " steps per second");
	}

	/**
	 * Return the rate, the mix and what ran so far.
	 * @return the status
	 */
	public LoadStatus status() {
		Map<LoadKind, Long> steps = new EnumMap<>(LoadKind.class);
		Map<LoadKind, Long> failures = new EnumMap<>(LoadKind.class);
		this.steps.forEach((kind, count) -> steps.put(kind, count.sum()));
		this.failures.forEach((kind, count) -> failures.put(kind, count.sum()));
		return new LoadStatus(this.rate, this.mix, steps, failures);
	}

	@Scheduled(fixedRate = 100)
	void tick() {
		int rate = this.rate;
		if (rate == 0) {
			this.owed = 0;
			return;
		}
		// at most one tick's worth in arrears: a slow tick does not turn into a burst
		this.owed = Math.min(this.owed + rate / 10.0, Math.max(rate / 10.0, 1));
		while (this.owed >= 1 && this.rate > 0) {
			this.owed--;
			LoadKind kind = this.draw.get(ThreadLocalRandom.current().nextInt(this.draw.size()));
			run(kind);
		}
	}

	private void run(LoadKind kind) {
		long n = ++this.sequence;
		try {
			switch (kind) {
				case ORDERS -> order(n);
				case BIDS -> bid(n);
				case IMAGES -> image(n);
				case REINDEX -> reindex(n);
				case PASSWORD_RESETS -> this.mail.requestPasswordReset("user-" + n % 500 + "@example.com");
				case NEWSLETTERS ->
					this.mail.sendNewsletter("Deals of the week", List.of("reader-" + n + "@example.com"));
				case IMPORTS -> this.imports.start((n % 5 != 0) ? "tenant-busy" : "tenant-" + n % 7, 1);
				case CLAIMS -> claim(n);
				case EXPORTS -> this.exports.start("customer-" + n % 1000 + "@example.com");
			}
			this.steps.get(kind).increment();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			this.failures.get(kind).increment();
			// a step fails each time while Redis is down: warn now and then, not per step
			if (System.nanoTime() - this.lastWarning > WARNING_INTERVAL.toNanos()) {
				this.lastWarning = System.nanoTime();
				logger.warn("Load step " + kind + " failed (further failures are counted in GET /load): " + ex);
			}
		}
	}

	private void order(long n) {
		Order order = this.orders.place("customer-" + n % 1000 + "@example.com", 1 + n % 4, 1);
		// the fourth customer does not pay: the order's timer cancels it in 30 minutes
		if (n % 4 != 0) {
			this.orders.pay(order.id());
		}
	}

	private void bid(long n) {
		Auction auction = (this.auctionId != null) ? this.auctions.find(this.auctionId) : null;
		if (auction == null || auction.status() != Auction.Status.OPEN || !Instant.now().isBefore(auction.endsAt())) {
			auction = this.auctions.open("Vintage camera #" + n, Duration.ofSeconds(30));
			this.auctionId = auction.id();
		}
		boolean late = Instant.now().plus(AuctionService.ANTI_SNIPING).isAfter(auction.endsAt());
		BigDecimal highest = (auction.highestBid() != null) ? auction.highestBid() : BigDecimal.ZERO;
		this.auctions.bid(auction.id(), "bidder-" + n % 20 + "@example.com", highest.add(BigDecimal.TEN));
		if (late) {
			// one late bid, which pushes the end back; the next bids go to a new auction,
			// so that this one ends
			this.auctionId = null;
		}
	}

	private void image(long n) {
		// one in ten ends dead, one in ten fails once
		String kind = (n % 10 == 0) ? "-corrupt" : (n % 10 == 5) ? "-flaky" : "";
		this.images.upload("photo-" + n + kind + ".jpg");
	}

	private void reindex(long n) {
		Product product = this.catalog.find(1 + n % 4);
		this.catalog.update(product.id(), product.name(), product.price());
	}

	private void claim(long n) throws InterruptedException {
		if (this.flashSale.findState(DEAL).map((state) -> state.stock() == 0).orElse(true)) {
			this.flashSale.open(DEAL, 10);
		}
		this.flashSale.requestClaim(DEAL, "buyer-" + n + "@example.com");
	}

	/**
	 * What the load generator does.
	 *
	 * @param rate steps per second
	 * @param mix weight of each kind of step
	 * @param steps steps run so far, by kind
	 * @param failures steps that failed so far, by kind
	 */
	public record LoadStatus(int rate, Map<LoadKind, Integer> mix, Map<LoadKind, Long> steps,
			Map<LoadKind, Long> failures) {
	}

}
