package io.redq.queue.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The order in which the reservations of one sharded queue try its shards. Each
 * reservation starts at the next shard in turn and fills its batch from the others, so
 * that a busy shard starves no other; but a shard that just woke an idle container comes
 * first, since it has work, and a shard that a reservation found without work comes last
 * for {@value #EMPTY_MILLIS} ms (or until it wakes a container), so that the reservations
 * of a busy container do not spend a script call on it each turn. It is still tried when
 * the other shards do not fill the batch, and takes its turns again after that time.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardTurns {

	/** How long a shard found without work is tried after the others. */
	static final long EMPTY_MILLIS = 10;

	private final LongSupplier nanoTime;

	private final AtomicInteger next = new AtomicInteger();

	/** The shards found without work, and until when ({@link System#nanoTime()}). */
	private final Map<String, Long> empty = new ConcurrentHashMap<>();

	ShardTurns() {
		this(System::nanoTime);
	}

	ShardTurns(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
	}

	/**
	 * Return the order in which the next reservation tries the shards.
	 * @param shards the queue's shards
	 * @param woken the shards whose wake-up ended the wait before the reservation, if any
	 * @return the shards, each once
	 */
	List<String> order(List<String> shards, Collection<String> woken) {
		int first = Math.floorMod(this.next.getAndIncrement(), shards.size());
		long now = this.nanoTime.getAsLong();
		List<String> order = new ArrayList<>(shards.size());
		for (String shard : woken) {
			this.empty.remove(shard);
			order.add(shard);
		}
		List<String> last = new ArrayList<>();
		for (int i = 0; i < shards.size(); i++) {
			String shard = shards.get((first + i) % shards.size());
			if (!order.contains(shard)) {
				Long until = this.empty.get(shard);
				((until != null && until - now > 0) ? last : order).add(shard);
			}
		}
		order.addAll(last);
		return order;
	}

	/**
	 * Record what a reservation found in a shard.
	 * @param shard the shard
	 * @param asked how many jobs it asked for
	 * @param reserved how many it reserved: fewer when the shard had no more work for it
	 */
	void found(String shard, int asked, int reserved) {
		if (reserved < asked) {
			this.empty.put(shard, this.nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(EMPTY_MILLIS));
		}
		else {
			this.empty.remove(shard);
		}
	}

}
