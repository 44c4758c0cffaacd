package io.redq.queue.lock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * A lock acquired from a {@link RedisLockService}; closing it releases the lock, so that
 * it fits try-with-resources:
 *
 * <pre class="code">
 * try (LockHandle lock = locks.tryAcquire("sku-42", Duration.ofSeconds(2))) {
 *     if (lock == null) {
 *         return; // someone else held it for the whole wait
 *     }
 *     // critical section; pass lock.getFencingToken() to the resource it writes
 * }
 * </pre>
 *
 * <p>
 * Each handle stands for one acquisition with its own owner token: only this handle
 * releases or extends that acquisition, even after its lease ended and another holder
 * took the lock. A handle may be used from any thread.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class LockHandle implements AutoCloseable {

	private final RedisLockService service;

	private final String name;

	private final String key;

	private final String token;

	private final long fencingToken;

	private final long leaseMillis;

	private final AtomicBoolean released = new AtomicBoolean();

	private @Nullable ScheduledFuture<?> renewal;

	LockHandle(RedisLockService service, String name, String key, String token, long fencingToken, long leaseMillis) {
		this.service = service;
		this.name = name;
		this.key = key;
		this.token = token;
		this.fencingToken = fencingToken;
		this.leaseMillis = leaseMillis;
	}

	/**
	 * Return the lock name.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Return the fencing token of this acquisition: greater than the token of every
	 * earlier acquisition of the same lock name. Pass it to the resource the critical
	 * section writes, and have the resource refuse a write that carries a smaller token
	 * than one it has seen, so that a holder whose lease ended (a long GC pause, for
	 * example) cannot overwrite the work of the next holder.
	 * @return the fencing token, 1 or more
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Ask Redis whether this acquisition still holds the lock: {@code false} after a
	 * release, or when the lease ended (and perhaps another holder took the lock).
	 * @return whether the lock is still held by this handle
	 */
	public boolean isHeldByMe() {
		return !this.released.get() && this.service.isHeld(this);
	}

	/**
	 * Make the lease last at least {@code leaseTime} from now, measured by Redis; a
	 * longer lease is kept. Does nothing when the lock is no longer held by this handle.
	 * @param leaseTime the least time the lease lasts from now, at least 1 ms
	 * @return whether the lock is still held by this handle
	 */
	public boolean extend(Duration leaseTime) {
		long millis = RedisLockService.leaseMillis(leaseTime);
		return !this.released.get() && this.service.extend(this, millis);
	}

	/**
	 * Release the lock and stop its watchdog; once only, later calls do nothing. A lock
	 * whose lease ended is left to whoever holds it now.
	 * @return whether the lock was still held by this handle and is now released
	 */
	public boolean release() {
		if (!this.released.compareAndSet(false, true)) {
			return false;
		}
		stopRenewal();
		return this.service.release(this);
	}

	/**
	 * Release the lock, as {@link #release()} does.
	 */
	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "LockHandle[name=" + this.name + ", fencingToken=" + this.fencingToken + "]";
	}

	String key() {
		return this.key;
	}

	String token() {
		return this.token;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	boolean isReleased() {
		return this.released.get();
	}

	synchronized void setRenewal(ScheduledFuture<?> renewal) {
		this.renewal = renewal;
		if (this.released.get()) {
			renewal.cancel(false);
		}
	}

	synchronized void stopRenewal() {
		if (this.renewal != null) {
			this.renewal.cancel(false);
		}
	}

}
