package io.redq.queue.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ReplicaWait;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * Distributed locks on Redis, one key per lock name.
 *
 * <p>
 * A lock is taken with an atomic {@code SET NX PX} under an owner token that is unique to
 * that acquisition; only that token releases or extends it (compare-and-delete and
 * compare-and-extend in Lua). The lease is measured by Redis, not by any client clock, so
 * a holder that dies without releasing frees the lock when its lease ends. An optional
 * watchdog renews the lease every third of it until the lock is released. Each
 * acquisition also gets a fencing token, a number that grows with every acquisition of
 * that lock name.
 *
 * <p>
 * Waiting for a held lock polls Redis with bounded exponential backoff and jitter: a
 * random delay between half and all of 5 ms, doubling up to 100 ms, and never longer than
 * the holder's remaining lease or the wait time left. There is no release notification,
 * so a waiter sees a release at its next attempt.
 *
 * <p>
 * Locks are not reentrant and not bound to a thread: a {@link LockHandle} can be released
 * from any thread, and a second acquisition of a held name waits, even in the thread that
 * holds it.
 *
 * <p>
 * Keys: {@code <prefix>:lock:{<name>}} holds the current owner token, and
 * {@code <prefix>:lock:{<name>}:fence} the last fencing token. The hash tag puts both on
 * one Redis Cluster slot. The fence key is kept after release, so that fencing tokens
 * keep growing.
 *
 * @author Redq team
 * @since 0.1.0
 * @see LockHandle
 */
public class RedisLockService implements DisposableBean {

	/** The default lease. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** Whether the watchdog renews leases by default. */
	public static final boolean DEFAULT_WATCHDOG = true;

	private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ACQUIRE_SCRIPT = script("acquire", List.class);

	private static final RedisScript<Long> RELEASE_SCRIPT = script("release", Long.class);

	private static final RedisScript<Long> EXTEND_SCRIPT = script("extend", Long.class);

	private static final Log logger = LogFactory.getLog(RedisLockService.class);

	private final StringRedisTemplate redis;

	private final Keyspace keyspace;

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong acquisitions = new AtomicLong();

	private final Map<String, LockHandle> held = new ConcurrentHashMap<>();

	private final Object watchdogMonitor = new Object();

	private @Nullable ScheduledThreadPoolExecutor watchdog;

	private boolean destroyed;

	private Duration leaseTime = DEFAULT_LEASE_TIME;

	private boolean watchdogEnabled = DEFAULT_WATCHDOG;

	private ReplicaWait replicaWait = ReplicaWait.NONE;

	/**
	 * Create an instance.
	 * @param connectionFactory the Redis connection factory
	 * @param keyspace the keys under the prefix, the locks' among them
	 */
	public RedisLockService(RedisConnectionFactory connectionFactory, Keyspace keyspace) {
		this.keyspace = keyspace;
		this.redis = new StringRedisTemplate(connectionFactory);
	}

	/**
	 * Set the lease of locks acquired without one: how long a lock is held without a
	 * renewal.
	 * <p>
	 * Default 30 seconds.
	 * @param leaseTime the lease, at least 1 ms
	 */
	public void setLeaseTime(Duration leaseTime) {
		leaseMillis(leaseTime);
		this.leaseTime = leaseTime;
	}

	/**
	 * Return the lease of locks acquired without one.
	 * @return the lease
	 */
	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	/**
	 * Set whether the watchdog renews the lease of locks acquired without saying, every
	 * third of the lease, until they are released. With it, a lock lasts as long as its
	 * holder: the lease only bounds how long others wait after the holder died, but a
	 * holder that hangs keeps the lock. Without it, a lock ends with its lease even if
	 * the holder is still working.
	 * <p>
	 * Default {@value #DEFAULT_WATCHDOG}.
	 * @param watchdog whether to renew leases
	 */
	public void setWatchdog(boolean watchdog) {
		this.watchdogEnabled = watchdog;
	}

	/**
	 * Set how many replicas must have a lock and its fencing token before
	 * {@code tryAcquire} returns it (Redis {@code WAIT}), so that a failover to one of
	 * them neither frees the lock nor hands its token out again. When fewer confirm
	 * within the timeout, the lock is released again and
	 * {@link io.redq.queue.core.ReplicationTimeoutException} is thrown. On a Redis
	 * Cluster, the replicas of the master that serves the lock's slot.
	 * <p>
	 * Default 0: no waiting.
	 * @param replicas the number of replicas
	 * @param timeout the longest wait for them
	 * @throws IllegalStateException when replicas are to be waited for with another
	 * client than Lettuce
	 */
	public void setReplicasToWaitFor(int replicas, Duration timeout) {
		this.replicaWait = new ReplicaWait(this.redis.getRequiredConnectionFactory(), replicas, timeout);
	}

	/**
	 * Return whether the watchdog renews the lease of locks acquired without saying.
	 * @return whether leases are renewed
	 */
	public boolean isWatchdog() {
		return this.watchdogEnabled;
	}

	/**
	 * Try to acquire a lock with the {@linkplain #setLeaseTime default lease} and
	 * {@linkplain #setWatchdog watchdog setting}, waiting up to {@code waitTime} while
	 * another holder has it.
	 * @param name the lock name: not empty, at most 100 characters, no <code>{</code>,
	 * <code>}</code> or control characters
	 * @param waitTime how long to wait at most; {@link Duration#ZERO} for a single
	 * attempt
	 * @return the held lock, to be released (try-with-resources), or {@code null} when
	 * the wait time passed
	 * @throws InterruptedException when the thread was interrupted before or while
	 * waiting
	 */
	public @Nullable LockHandle tryAcquire(String name, Duration waitTime) throws InterruptedException {
		return tryAcquire(name, waitTime, this.leaseTime, this.watchdogEnabled);
	}

	/**
	 * Try to acquire a lock, waiting up to {@code waitTime} while another holder has it.
	 * @param name the lock name: not empty, at most 100 characters, no <code>{</code>,
	 * <code>}</code> or control characters
	 * @param waitTime how long to wait at most; {@link Duration#ZERO} for a single
	 * attempt
	 * @param leaseTime how long the lock is held without a renewal, at least 1 ms
	 * @param watchdog whether to renew the lease every third of it until the lock is
	 * released
	 * @return the held lock, to be released (try-with-resources), or {@code null} when
	 * the wait time passed
	 * @throws InterruptedException when the thread was interrupted before or while
	 * waiting
	 */
	public @Nullable LockHandle tryAcquire(String name, Duration waitTime, Duration leaseTime, boolean watchdog)
			throws InterruptedException {
		List<String> keys = this.keyspace.lock(name);
		Assert.isTrue(!waitTime.isNegative(), "waitTime must not be negative");
		long leaseMillis = leaseMillis(leaseTime);
		if (watchdog) {
			synchronized (this.watchdogMonitor) {
				Assert.state(!this.destroyed, "RedisLockService was destroyed: its watchdog no longer runs");
			}
		}
		String token = this.instanceId + ":" + this.acquisitions.incrementAndGet();
		long waitNanos = TimeUnit.NANOSECONDS.convert(waitTime);
		long start = System.nanoTime();
		long backoff = MIN_BACKOFF_NANOS;
		while (true) {
			if (Thread.interrupted()) {
				throw new InterruptedException("Interrupted while waiting for lock '" + name + "'");
			}
			List<?> result = acquire(name, keys, token, leaseMillis);
			Assert.state(result != null && result.size() == 2, "Unexpected lock script result");
			if (number(result, 0) == 1) {
				LockHandle lock = new LockHandle(this, name, keys.get(0), token, number(result, 1), leaseMillis);
				this.held.put(token, lock);
				if (watchdog) {
					startWatchdog(lock);
				}
				return lock;
			}
			long remaining = waitNanos - (System.nanoTime() - start);
			if (remaining <= 0) {
				return null;
			}
			long delay = Math.min(backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1), remaining);
			long holderLease = number(result, 1);
			if (holderLease >= 0) {
				// the holder may have died: try again just after its lease ends
				delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(holderLease + 1));
			}
			TimeUnit.NANOSECONDS.sleep(delay);
			backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
		}
	}

	/**
	 * Release every lock that this instance acquired and that was not released yet,
	 * whichever thread holds it. Meant for shutdown and cleanup: a thread still inside
	 * one of these critical sections loses its exclusion.
	 * @return how many locks were still held and are now released
	 */
	public int releaseAll() {
		int released = 0;
		for (LockHandle lock : this.held.values()) {
			if (lock.release()) {
				released++;
			}
		}
		return released;
	}

	/**
	 * Stop the watchdog. Locks still held are not released: their leases end as if this
	 * process had died. Call {@link #releaseAll()} first when nothing runs in them
	 * anymore.
	 */
	@Override
	public void destroy() {
		synchronized (this.watchdogMonitor) {
			this.destroyed = true;
			if (this.watchdog != null) {
				this.watchdog.shutdownNow();
				this.watchdog = null;
			}
		}
	}

	private @Nullable List<?> acquire(String name, List<String> keys, String token, long leaseMillis) {
		try {
			// only an acquisition waits for the replicas: a poll of a lock held by
			// another
			// wrote nothing
			return this.replicaWait.write(this.redis, ACQUIRE_SCRIPT, keys, List.of(token, Long.toString(leaseMillis)),
					(result) -> result != null && number(result, 0) == 1, "the lock '" + name + "'");
		}
		catch (ReplicationTimeoutException ex) {
			this.redis.execute(RELEASE_SCRIPT, List.of(keys.get(0)), token);
			throw new ReplicationTimeoutException(ex.getRequired(), ex.getConfirmed(),
					ex.getMessage() + " The lock was released again: try again once the replicas are back.");
		}
	}

	boolean isHeld(LockHandle lock) {
		return lock.token().equals(this.redis.opsForValue().get(lock.key()));
	}

	boolean extend(LockHandle lock, long leaseMillis) {
		Long result = this.redis.execute(EXTEND_SCRIPT, List.of(lock.key()), lock.token(), Long.toString(leaseMillis));
		return result != null && result == 1L;
	}

	boolean release(LockHandle lock) {
		this.held.remove(lock.token(), lock);
		Long result = this.redis.execute(RELEASE_SCRIPT, List.of(lock.key()), lock.token());
		return result != null && result == 1L;
	}

	static long leaseMillis(Duration leaseTime) {
		Assert.isTrue(leaseTime.toMillis() >= 1, "leaseTime must be at least 1 ms");
		return leaseTime.toMillis();
	}

	private void startWatchdog(LockHandle lock) {
		long period = Math.max(1, lock.leaseMillis() / 3);
		synchronized (this.watchdogMonitor) {
			if (this.destroyed) {
				lock.release();
				throw new IllegalStateException("RedisLockService was destroyed: its watchdog no longer runs");
			}
			if (this.watchdog == null) {
				CustomizableThreadFactory threads = new CustomizableThreadFactory("redq-lock-watchdog-");
				threads.setDaemon(true);
				this.watchdog = new ScheduledThreadPoolExecutor(1, threads);
				this.watchdog.setRemoveOnCancelPolicy(true);
			}
			ScheduledFuture<?> renewal = this.watchdog.scheduleAtFixedRate(() -> renew(lock), period, period,
					TimeUnit.MILLISECONDS);
			lock.setRenewal(renewal);
		}
	}

	private void renew(LockHandle lock) {
		try {
			if (!extend(lock, lock.leaseMillis()) && !lock.isReleased()) {
				lock.stopRenewal();
				this.held.remove(lock.token(), lock);
				logger.warn("Lost lock '" + lock.getName() + "' (fencing token " + lock.getFencingToken()
						+ "): its lease of " + lock.leaseMillis() + " ms ended before the watchdog renewed it, so "
						+ "another holder may have it. Was this process paused or cut off from Redis?");
			}
		}
		catch (RuntimeException ex) {
			// keep renewing: the lease may outlast a short outage
			logger.warn("Could not renew the lease of lock '" + lock.getName() + "'", ex);
		}
	}

	private static long number(List<?> values, int index) {
		return ((Number) values.get(index)).longValue();
	}

	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		ClassPathResource resource = new ClassPathResource(name + ".lua", RedisLockService.class);
		try {
			return RedisScript.of(resource.getContentAsString(StandardCharsets.UTF_8), resultType);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Redq script " + resource, ex);
		}
	}

}
