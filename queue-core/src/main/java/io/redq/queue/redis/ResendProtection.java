package io.redq.queue.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.util.Assert;

/**
 * Makes the calls that change a queue (dispatch, cancel, reschedule, retry or delete dead
 * jobs, purge) harmless when Lettuce re-sends them: Lettuce re-sends a command whose
 * reply was lost when it reconnects, and that same call must then change nothing and get
 * the same reply, even when its jobs ran and completed meanwhile.
 * <p>
 * This instance is a producer with a random id. Each call runs on a lane of its own,
 * which no other call of this producer takes until that call has its reply (or has timed
 * out, after which Lettuce no longer re-sends it), and with a sequence number of its own.
 * The script keeps the reply of the lane's latest call in
 * {@code <prefix>:{<queue>}:sent:<producer>:<lane>} for the re-send window and returns it
 * to the same call again ({@code remembered} in {@code common.lua}): one key per lane,
 * written over by the lane's next call, so that Redis holds as many keys as calls were in
 * flight at once, not one per call, and each call costs the same {@code GET} and
 * {@code SET PX} as a key per call would.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class ResendProtection {

	/**
	 * The default re-send window: two minutes, longer than Lettuce's default command
	 * timeout of one minute.
	 */
	public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

	private static final SecureRandom RANDOM = new SecureRandom();

	private final String producer = producerId();

	private final AtomicLong sequence = new AtomicLong();

	private final AtomicInteger lanes = new AtomicInteger();

	private final ConcurrentLinkedDeque<Integer> freeLanes = new ConcurrentLinkedDeque<>();

	private volatile Duration window = DEFAULT_WINDOW;

	/**
	 * Set how long Redis remembers the reply of a lane's latest call: longer than the
	 * Redis command timeout, after which Lettuce no longer re-sends a call.
	 * <p>
	 * Default {@link #DEFAULT_WINDOW}.
	 * @param window the window
	 */
	public void setWindow(Duration window) {
		Assert.isTrue(window.toMillis() > 0, () -> "resendWindow must be at least 1 ms; got " + window);
		this.window = window;
	}

	/**
	 * Return the re-send window.
	 * @return the window
	 */
	public Duration getWindow() {
		return this.window;
	}

	/**
	 * Begin a call on a queue: on a free lane, with the next sequence number. The caller
	 * must {@link #end(Call) end} it once the call has its reply or failed, and not
	 * before, since Lettuce may re-send it until then.
	 * @param keys the keys of the queue
	 * @return the call
	 */
	public Call begin(QueueKeys keys) {
		Integer free = this.freeLanes.pollFirst();
		int lane = (free != null) ? free : this.lanes.getAndIncrement();
		return new Call(lane, keys.sent(this.producer, lane), this.sequence.incrementAndGet(), this.window);
	}

	/**
	 * End a call: its lane is free for the next one.
	 * @param call the call
	 */
	public void end(Call call) {
		// the lane freed last is taken first, so that the extra lanes of a burst go
		// unused and their keys expire
		this.freeLanes.addFirst(call.lane());
	}

	/**
	 * Return a call that its caller makes under an id of its own, at most once within the
	 * window however often it is sent: an outbox row that a relay may send again after a
	 * crash. It is the one call of a producer of that id.
	 * @param keys the keys of the queue
	 * @param id the call's id, unique and unguessable (see {@link #newId()})
	 * @param window how long Redis remembers the reply
	 * @return the call
	 */
	public static Call once(QueueKeys keys, String id, Duration window) {
		return new Call(0, keys.sent(id, 0), 1, window);
	}

	/**
	 * Return a new producer or call id: 128 random bits, 22 URL-safe characters.
	 * @return the id
	 */
	public static String newId() {
		return producerId();
	}

	private static String producerId() {
		byte[] bytes = new byte[16];
		RANDOM.nextBytes(bytes);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	/**
	 * One call that changes a queue: its script gets {@link #key()} as the last of its
	 * {@code KEYS} and {@link #args()} as the first two of its {@code ARGV}.
	 *
	 * @param lane the lane, which no other call uses meanwhile
	 * @param key the lane's key in the queue
	 * @param sequence the call's sequence number, unique for this producer
	 * @param window how long Redis remembers the reply
	 */
	public record Call(int lane, String key, long sequence, Duration window) {

		/**
		 * Refuse a window below 1 ms before anything is sent: Redis cannot keep a reply
		 * for less ({@code SET PX} of 0 fails), and the script would fail only after
		 * writing the call's jobs.
		 */
		public Call {
			Assert.isTrue(window.toMillis() > 0, () -> "The re-send window must be at least 1 ms, the shortest time "
					+ "Redis keeps a call's reply for; got " + window);
		}

		/**
		 * Return the arguments that identify the call: its sequence number and the window
		 * in ms.
		 * @return the arguments
		 */
		public List<String> args() {
			return List.of(Long.toString(this.sequence), Long.toString(this.window.toMillis()));
		}

	}

}
