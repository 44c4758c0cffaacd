package io.redq.sample.flashsale;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * The stock of flash sales and the claims on it, changed only under the sale's Redis
 * lock.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class FlashSale {

	/** How long a claim or a restock waits for the sale's lock. */
	static final Duration LOCK_WAIT = Duration.ofSeconds(5);

	private final RedisLockService locks;

	private final JdbcClient jdbc;

	private final TransactionTemplate transactions;

	private final JobDispatcher dispatcher;

	public FlashSale(RedisLockService locks, JdbcClient jdbc, TransactionTemplate transactions,
			JobDispatcher dispatcher) {
		this.locks = locks;
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.dispatcher = dispatcher;
	}

	/**
	 * Put an item on sale, or set the stock of one on sale.
	 * @param sku the item
	 * @param stock how many are for sale
	 * @throws InterruptedException when interrupted while waiting for the lock
	 */
	public void open(String sku, int stock) throws InterruptedException {
		Assert.isTrue(sku.matches("[A-Za-z0-9._-]{1,100}"),
				() -> "sku must be 1 to 100 letters, digits, '.', '_' or '-', but was '" + sku + "'");
		Assert.isTrue(stock >= 0, () -> "stock must not be negative, but was " + stock);
		locked(sku,
				() -> this.jdbc.sql("MERGE INTO flash_sale (sku, stock) KEY (sku) VALUES (:sku, :stock)")
					.param("sku", sku)
					.param("stock", stock)
					.update());
	}

	/**
	 * Claim an item for a buyer: the claim is decided in line by {@link FlashSaleJobs}. A
	 * buyer who claims twice gets one claim, under the same job id.
	 * @param sku the item
	 * @param buyer who claims it
	 * @return the claim's job id
	 * @throws NoSuchElementException when the item is not on sale
	 */
	public String requestClaim(String sku, String buyer) {
		Assert.hasText(buyer, "buyer is required");
		// an item that is not on sale fails here, not as a dead job later
		state(sku);
		return this.dispatcher
			.dispatch(JobRequest.of("claim-flash-item", new Claim(sku, buyer)).id("claim:" + sku + ":" + buyer).build())
			.id();
	}

	/**
	 * Decide a buyer's claim: an item if one is left, else sold out. A claim decided
	 * before (its job ran again) keeps its outcome.
	 * @param sku the item
	 * @param buyer who claims it
	 * @return the outcome
	 * @throws NoSuchElementException when the item is not on sale
	 * @throws InterruptedException when interrupted while waiting for the lock
	 */
	public Outcome claim(String sku, String buyer) throws InterruptedException {
		return locked(sku, () -> decide(sku, buyer));
	}

	/**
	 * Return the state of a flash sale.
	 * @param sku the item
	 * @return its stock and claims
	 * @throws NoSuchElementException when the item is not on sale
	 */
	public State state(String sku) {
		return findState(sku).orElseThrow(() -> new NoSuchElementException("No flash sale of " + sku));
	}

	/**
	 * Return the state of a flash sale, if there is one.
	 * @param sku the item
	 * @return its stock and claims, or empty when the item is not on sale
	 */
	public Optional<State> findState(String sku) {
		return this.jdbc.sql("""
				SELECT sku, stock,
				(SELECT COUNT(*) FROM flash_sale_claim c WHERE c.sku = s.sku AND outcome = 'WON') AS won,
				(SELECT COUNT(*) FROM flash_sale_claim c WHERE c.sku = s.sku AND outcome = 'SOLD_OUT') AS sold_out
				FROM flash_sale s WHERE sku = :sku""").param("sku", sku).query(State.class).optional();
	}

	private <T> T locked(String sku, Supplier<T> action) throws InterruptedException {
		try (LockHandle lock = this.locks.tryAcquire("flash-sale:" + sku, LOCK_WAIT)) {
			if (lock == null) {
				throw new IllegalStateException(
						"The flash sale of " + sku + " stayed busy for " + LOCK_WAIT.toSeconds() + "s: try again");
			}
			// The transaction commits before the lock is released: a commit after it
			// would let the next holder read the stock this one is about to change.
			return this.transactions.execute((status) -> action.get());
		}
	}

	// Read, check, then write, in several statements: right only while nobody else does
	// it for this item at once, which the lock makes sure of across every instance.
	private Outcome decide(String sku, String buyer) {
		Outcome decided = this.jdbc.sql("SELECT outcome FROM flash_sale_claim WHERE sku = :sku AND buyer = :buyer")
			.param("sku", sku)
			.param("buyer", buyer)
			.query(Outcome.class)
			.optional()
			.orElse(null);
		if (decided != null) {
			return decided;
		}
		int stock = this.jdbc.sql("SELECT stock FROM flash_sale WHERE sku = :sku")
			.param("sku", sku)
			.query(Integer.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("No flash sale of " + sku));
		Outcome outcome = (stock > 0) ? Outcome.WON : Outcome.SOLD_OUT;
		this.jdbc.sql("INSERT INTO flash_sale_claim (sku, buyer, outcome) VALUES (:sku, :buyer, :outcome)")
			.param("sku", sku)
			.param("buyer", buyer)
			.param("outcome", outcome.name())
			.update();
		if (outcome == Outcome.WON) {
			this.jdbc.sql("UPDATE flash_sale SET stock = :left WHERE sku = :sku")
				.param("left", stock - 1)
				.param("sku", sku)
				.update();
		}
		return outcome;
	}

	/**
	 * What a claim got.
	 */
	public enum Outcome {

		/** One of the items. */
		WON,

		/** Nothing: the items were gone. */
		SOLD_OUT

	}

	/**
	 * The state of a flash sale.
	 *
	 * @param sku the item
	 * @param stock how many are left
	 * @param won how many claims got an item
	 * @param soldOut how many claims came too late
	 */
	public record State(String sku, int stock, long won, long soldOut) {
	}

}
