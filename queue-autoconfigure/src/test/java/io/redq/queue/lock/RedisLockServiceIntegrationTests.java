package io.redq.queue.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.redis.Keyspace;
import io.redq.queue.test.ScriptExecutions;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Integration tests for {@link RedisLockService} and {@link LockHandle}: three
 * independent service instances, each on its own connection factory, as three application
 * instances would be.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(OutputCaptureExtension.class)
class RedisLockServiceIntegrationTests {

	private static final Log logger = LogFactory.getLog(RedisLockServiceIntegrationTests.class);

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private final RedisServer redis;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	private final List<RedisLockService> services = new ArrayList<>();

	private final List<StringRedisTemplate> templates = new ArrayList<>();

	private RedisLockService first;

	private RedisLockService second;

	private RedisLockService third;

	private StringRedisTemplate template;

	RedisLockServiceIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void setUp() {
		for (int i = 0; i < 3; i++) {
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			this.connectionFactories.add(connectionFactory);
			this.services.add(new RedisLockService(connectionFactory, new Keyspace("test")));
			this.templates.add(new StringRedisTemplate(connectionFactory));
		}
		this.first = this.services.get(0);
		this.second = this.services.get(1);
		this.third = this.services.get(2);
		this.template = this.templates.get(0);
	}

	@AfterEach
	void tearDown() {
		this.services.forEach(RedisLockService::destroy);
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void lockIsOneKeyHoldingTheOwnerTokenWithALeaseMeasuredByRedis() throws Exception {
		LockHandle lock = this.first.tryAcquire("orders", Duration.ZERO, Duration.ofSeconds(10), false);
		assertThat(lock).isNotNull();
		assertThat(lock.getName()).isEqualTo("orders");
		assertThat(lock.getFencingToken()).isEqualTo(1);
		assertThat(lock.isHeldByMe()).isTrue();
		assertThat(this.template.opsForValue().get("test:lock:{orders}")).isEqualTo(lock.token());
		assertThat(pttl("orders")).isBetween(1L, 10_000L);
		assertThat(this.template.opsForValue().get("test:lock:{orders}:fence")).isEqualTo("1");
		assertThat(this.second.tryAcquire("orders", Duration.ZERO)).isNull();
		assertThat(this.first.tryAcquire("orders", Duration.ZERO)).as("not reentrant").isNull();
		assertThat(lock.release()).isTrue();
		assertThat(lock.release()).as("released once").isFalse();
		assertThat(lock.isHeldByMe()).isFalse();
		assertThat(this.template.keys("test:*")).containsOnly("test:lock:{orders}:fence");
	}

	@Test
	void everyAcquisitionHasItsOwnOwnerToken() throws Exception {
		LockHandle once = this.first.tryAcquire("orders", Duration.ZERO);
		assertThat(once).isNotNull();
		once.release();
		LockHandle twice = this.first.tryAcquire("orders", Duration.ZERO);
		assertThat(twice).isNotNull();
		assertThat(twice.token()).isNotEqualTo(once.token());
		assertThat(once.release()).isFalse();
		assertThat(twice.isHeldByMe()).isTrue();
	}

	@Test
	void defaultLeaseAndWatchdogApplyWhenNotGiven() throws Exception {
		assertThat(this.first.getLeaseTime()).isEqualTo(RedisLockService.DEFAULT_LEASE_TIME);
		assertThat(this.first.isWatchdog()).isEqualTo(RedisLockService.DEFAULT_WATCHDOG).isTrue();
		this.first.setLeaseTime(Duration.ofMillis(200));
		this.first.setWatchdog(false);
		LockHandle lock = this.first.tryAcquire("short", Duration.ZERO);
		assertThat(lock).isNotNull();
		assertThat(pttl("short")).isBetween(1L, 200L);
		await().atMost(DEADLINE).until(() -> !lock.isHeldByMe());
	}

	@Test
	void tryWithResourcesReleasesTheLockAndSkipsAMissingOne() throws Exception {
		try (LockHandle lock = this.first.tryAcquire("report", Duration.ZERO)) {
			assertThat(lock).isNotNull();
			try (LockHandle busy = this.second.tryAcquire("report", Duration.ZERO)) {
				assertThat(busy).isNull();
			}
		}
		try (LockHandle lock = this.second.tryAcquire("report", Duration.ZERO)) {
			assertThat(lock).isNotNull();
			assertThat(lock.getFencingToken()).isEqualTo(2);
		}
		assertThat(this.template.hasKey("test:lock:{report}")).isFalse();
	}

	@Test
	void lockWhoseHolderNeverReleasesItIsFreeWhenItsLeaseEnds() throws Exception {
		// a holder that was killed: the handle is dropped, nothing renews or releases it
		long start = System.nanoTime();
		assertThat(this.first.tryAcquire("nightly", Duration.ZERO, Duration.ofMillis(300), false)).isNotNull();
		assertThat(this.second.tryAcquire("nightly", Duration.ZERO)).isNull();
		LockHandle next = this.second.tryAcquire("nightly", Duration.ofSeconds(10));
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(next).isNotNull();
		assertThat(next.getFencingToken()).isEqualTo(2);
		// the lease began after start: never a second holder before it ended (how soon
		// after is for benchmarks)
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		logger.info("Acquired a lock " + waited.toMillis() + " ms after its dead holder's 300 ms lease started");
	}

	@Test
	void holderWhoseLeaseEndedCannotReleaseOrExtendTheNextOwnersLock() throws Exception {
		LockHandle late = this.first.tryAcquire("stock", Duration.ZERO, Duration.ofMillis(100), false);
		assertThat(late).isNotNull();
		LockHandle current = this.second.tryAcquire("stock", Duration.ofSeconds(10), Duration.ofSeconds(30), false);
		assertThat(current).isNotNull();
		assertThat(late.isHeldByMe()).isFalse();
		assertThat(late.extend(Duration.ofMinutes(5))).isFalse();
		assertThat(late.release()).isFalse();
		assertThat(current.isHeldByMe()).isTrue();
		assertThat(this.template.opsForValue().get("test:lock:{stock}")).isEqualTo(current.token());
		assertThat(pttl("stock")).as("not extended by the late holder").isBetween(1L, 30_000L);
		assertThat(this.third.tryAcquire("stock", Duration.ZERO)).isNull();
		assertThat(current.getFencingToken()).isGreaterThan(late.getFencingToken());
	}

	@Test
	void extendLengthensTheLeaseButNeverShortensIt() throws Exception {
		LockHandle lock = this.first.tryAcquire("export", Duration.ZERO, Duration.ofSeconds(1), false);
		assertThat(lock).isNotNull();
		assertThat(lock.extend(Duration.ofSeconds(60))).isTrue();
		assertThat(pttl("export")).isBetween(58_000L, 60_000L);
		assertThat(lock.extend(Duration.ofSeconds(5))).isTrue();
		assertThat(pttl("export")).isGreaterThan(55_000L);
		assertThat(lock.release()).isTrue();
		assertThat(lock.extend(Duration.ofSeconds(5))).isFalse();
	}

	@Test
	void watchdogKeepsAShortLeaseAliveOverALongCriticalSection() throws Exception {
		// short enough that the section outlasts many leases, long enough that a loaded
		// machine renews it in time
		LockHandle holder = this.first.tryAcquire("nightly", Duration.ZERO, Duration.ofMillis(600), true);
		assertThat(holder).isNotNull();
		// the holder's critical section lasts while another instance waits 3 s, 5 leases
		long start = System.nanoTime();
		assertThat(this.second.tryAcquire("nightly", Duration.ofSeconds(3))).isNull();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
		assertThat(holder.isHeldByMe()).isTrue();
		assertThat(pttl("nightly")).as("renewed, not lengthened").isBetween(1L, 600L);
		assertThat(holder.release()).isTrue();
		LockHandle next = this.second.tryAcquire("nightly", Duration.ZERO);
		assertThat(next).isNotNull();
		assertThat(next.getFencingToken()).isEqualTo(2);
	}

	@Test
	void watchdogStopsWhenTheLockIsReleased() throws Exception {
		long before = ScriptExecutions.count(this.redis);
		// a lease long enough that renewals every 100ms keep it on a loaded machine
		LockHandle lock = this.first.tryAcquire("renewed", Duration.ZERO, Duration.ofMillis(300), true);
		assertThat(lock).isNotNull();
		await().atMost(DEADLINE).until(() -> ScriptExecutions.count(this.redis) >= before + 4);
		assertThat(lock.release()).isTrue();
		// 5 renewal periods without a script call; a renewal already running when the
		// lock was released may still finish after it
		AtomicLong last = new AtomicLong(ScriptExecutions.count(this.redis));
		await().during(Duration.ofMillis(500)).atMost(DEADLINE).until(() -> {
			long count = ScriptExecutions.count(this.redis);
			return last.getAndSet(count) == count;
		});
		assertThat(this.template.hasKey("test:lock:{renewed}")).isFalse();
	}

	@Test
	void watchdogReportsALostLockAndLeavesTheNextOwnerAlone(CapturedOutput output) throws Exception {
		LockHandle lost = this.first.tryAcquire("paused", Duration.ZERO, Duration.ofMillis(300), true);
		assertThat(lost).isNotNull();
		// as if the lease had ended during a pause
		this.template.delete("test:lock:{paused}");
		LockHandle current = this.second.tryAcquire("paused", Duration.ZERO, Duration.ofSeconds(30), false);
		assertThat(current).isNotNull();
		await().atMost(DEADLINE)
			.until(() -> output.getOut().contains("Lost lock 'paused' (fencing token 1): its lease of 300 ms ended"));
		assertThat(this.template.opsForValue().get("test:lock:{paused}")).isEqualTo(current.token());
		assertThat(pttl("paused")).isGreaterThan(1000L);
		assertThat(this.first.releaseAll()).isZero();
		assertThat(current.isHeldByMe()).isTrue();
	}

	@Test
	void fencingTokensStrictlyIncreaseWithEveryAcquisitionOfALockName() throws Exception {
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			LockHandle lock = this.services.get(i % 3)
				.tryAcquire("ledger", Duration.ofSeconds(10), Duration.ofMillis(50), false);
			assertThat(lock).isNotNull();
			tokens.add(lock.getFencingToken());
			if (i % 2 == 0) {
				lock.release();
			}
			// else its lease ends
		}
		assertThat(tokens).doesNotHaveDuplicates().isSorted().hasSize(30);
		assertThat(tokens.get(0)).isEqualTo(1);
		LockHandle other = this.first.tryAcquire("other-ledger", Duration.ZERO);
		assertThat(other).isNotNull();
		assertThat(other.getFencingToken()).as("counted per lock name").isEqualTo(1);
	}

	@Test
	void flashSaleOfTenPhonesToTwoThousandBuyersSellsExactlyTen() throws Exception {
		String stock = "shop:phone:stock";
		String orders = "shop:phone:orders";
		this.template.opsForValue().set(stock, "10");
		AtomicInteger sold = new AtomicInteger();
		AtomicInteger soldOut = new AtomicInteger();
		AtomicInteger gaveUp = new AtomicInteger();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger mostInside = new AtomicInteger();
		ExecutorService buyers = Executors.newFixedThreadPool(64);
		long start = System.nanoTime();
		try {
			List<Future<?>> purchases = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				RedisLockService locks = this.services.get(i % 3);
				StringRedisTemplate shop = this.templates.get(i % 3);
				String buyer = "buyer-" + i;
				purchases.add(buyers.submit(() -> {
					try (LockHandle lock = locks.tryAcquire("flash-sale:phone", Duration.ofSeconds(20))) {
						if (lock == null) {
							gaveUp.incrementAndGet();
							return null;
						}
						mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
						// read, check, write: safe only under the lock
						int left = Integer.parseInt(shop.opsForValue().get(stock));
						if (left > 0) {
							shop.opsForValue().set(stock, Integer.toString(left - 1));
							shop.opsForList().rightPush(orders, buyer);
							sold.incrementAndGet();
						}
						else {
							soldOut.incrementAndGet();
						}
						inside.decrementAndGet();
					}
					return null;
				}));
			}
			for (Future<?> purchase : purchases) {
				purchase.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		finally {
			buyers.shutdownNow();
		}
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		logger.info("Flash sale: " + sold + " sold, " + soldOut + " told sold out, " + gaveUp + " gave up waiting, in "
				+ took.toMillis() + " ms");
		assertThat(sold).hasValue(10);
		assertThat(this.template.opsForValue().get(stock)).isEqualTo("0");
		assertThat(this.template.opsForList().range(orders, 0, -1)).hasSize(10).doesNotHaveDuplicates();
		assertThat(mostInside).hasValue(1);
		assertThat(sold.get() + soldOut.get() + gaveUp.get()).isEqualTo(2000);
		assertThat(this.template.hasKey("test:lock:{flash-sale:phone}")).isFalse();
	}

	@Test
	void releaseAllReleasesEveryLockThisInstanceHoldsAndNoOther() throws Exception {
		List<LockHandle> mine = List.of(this.first.tryAcquire("a", Duration.ZERO, Duration.ofSeconds(30), false),
				this.first.tryAcquire("b", Duration.ZERO, Duration.ofSeconds(30), true),
				this.first.tryAcquire("c", Duration.ZERO, Duration.ofSeconds(30), false));
		LockHandle theirs = this.second.tryAcquire("d", Duration.ZERO);
		LockHandle alreadyReleased = this.first.tryAcquire("e", Duration.ZERO);
		assertThat(theirs).isNotNull();
		assertThat(alreadyReleased).isNotNull();
		alreadyReleased.release();
		assertThat(this.first.releaseAll()).isEqualTo(3);
		assertThat(mine).noneMatch(LockHandle::isHeldByMe);
		assertThat(theirs.isHeldByMe()).isTrue();
		for (String name : List.of("a", "b", "c")) {
			assertThat(this.second.tryAcquire(name, Duration.ZERO)).isNotNull();
		}
		assertThat(this.first.releaseAll()).isZero();
	}

	@Test
	void waitingForAHeldLockDoesNotSpinOnRedis() throws Exception {
		LockHandle holder = this.first.tryAcquire("busy", Duration.ZERO, Duration.ofSeconds(30), false);
		assertThat(holder).isNotNull();
		assertThat(this.second.tryAcquire("warm-up", Duration.ZERO)).isNotNull();
		long commandsBefore = commandCount();
		long attemptsBefore = ScriptExecutions.count(this.redis);
		long start = System.nanoTime();
		LockHandle waiter = this.second.tryAcquire("busy", Duration.ofSeconds(1));
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		long commands = commandCount() - commandsBefore;
		long attempts = ScriptExecutions.count(this.redis) - attemptsBefore;
		logger.info("Waiting " + waited.toMillis() + " ms for a held lock took " + attempts + " attempts, " + commands
				+ " Redis commands counting those the scripts ran");
		assertThat(waiter).isNull();
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(2));
		// backoff from 2.5-5 ms up to 50-100 ms: at most about 25 attempts in a second
		assertThat(attempts).isBetween(5L, 30L);
		assertThat(commands).isLessThan(100L);
	}

	@Test
	void interruptedThreadDoesNotWait() throws Exception {
		assertThat(this.first.tryAcquire("busy", Duration.ZERO)).isNotNull();
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class)
			.isThrownBy(() -> this.second.tryAcquire("busy", Duration.ofSeconds(30)))
			.withMessage("Interrupted while waiting for lock 'busy'");
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void invalidArgumentsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.tryAcquire("orders{eu}", Duration.ZERO))
			.withMessageStartingWith("Invalid lock name 'orders{eu}': it contains '{'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.tryAcquire("", Duration.ZERO))
			.withMessageStartingWith("Invalid lock name '': it is empty");
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.tryAcquire("a\nb", Duration.ZERO))
			.withMessageStartingWith("Invalid lock name 'a\\u000Ab': it contains the control character U+000A");
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.tryAcquire("l".repeat(101), Duration.ZERO))
			.withMessageContaining("it is 101 characters long, the limit is 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.tryAcquire("ok", Duration.ofSeconds(-1)))
			.withMessage("waitTime must not be negative");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.first.tryAcquire("ok", Duration.ZERO, Duration.ofNanos(999_999), false))
			.withMessage("leaseTime must be at least 1 ms");
		assertThatIllegalArgumentException().isThrownBy(() -> this.first.setLeaseTime(Duration.ZERO));
		assertThat(this.template.keys("test:*")).isEmpty();
	}

	@Test
	void scriptCacheFlushIsRecoveredTransparently() throws Exception {
		LockHandle lock = this.first.tryAcquire("flushed", Duration.ZERO);
		assertThat(lock).isNotNull();
		this.redis.command("SCRIPT", "FLUSH");
		assertThat(lock.extend(Duration.ofMinutes(1))).isTrue();
		this.redis.command("SCRIPT", "FLUSH");
		assertThat(lock.release()).isTrue();
		this.redis.command("SCRIPT", "FLUSH");
		assertThat(this.second.tryAcquire("flushed", Duration.ZERO)).isNotNull();
	}

	@Test
	void destroyStopsTheWatchdogAndLeavesLocksToTheirLease() throws Exception {
		LockHandle lock = this.first.tryAcquire("left", Duration.ZERO, Duration.ofMillis(200), true);
		assertThat(lock).isNotNull();
		this.first.destroy();
		await().atMost(DEADLINE).until(() -> !this.template.hasKey("test:lock:{left}"));
		assertThatIllegalStateException()
			.isThrownBy(() -> this.first.tryAcquire("other", Duration.ZERO, Duration.ofSeconds(1), true))
			.withMessageContaining("destroyed");
		LockHandle plain = this.first.tryAcquire("other", Duration.ZERO, Duration.ofSeconds(1), false);
		assertThat(plain).isNotNull();
		assertThat(plain.release()).isTrue();
	}

	private long pttl(String name) {
		Long pttl = this.template.getExpire("test:lock:{" + name + "}", TimeUnit.MILLISECONDS);
		return (pttl != null) ? pttl : -2;
	}

	/**
	 * Commands the server ran so far, except {@code INFO}, from
	 * {@code INFO commandstats}.
	 */
	private long commandCount() {
		long calls = 0;
		for (String line : this.redis.command("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				String stats = line.substring(line.indexOf(':') + 1);
				for (String pair : stats.split(",")) {
					if (pair.startsWith("calls=")) {
						calls += Long.parseLong(pair.substring("calls=".length()));
					}
				}
			}
		}
		return calls;
	}

}
