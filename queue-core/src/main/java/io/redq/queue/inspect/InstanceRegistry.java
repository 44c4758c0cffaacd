package io.redq.queue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

import io.redq.queue.redis.InstanceRecords;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.WireFormat;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The application instances alive on a key prefix, kept in Redis: each instance writes
 * its description to a key of its own that expires unless its next heartbeat comes in
 * time, so that a dead instance disappears by itself, and an index of the instances by
 * latest heartbeat lets them be listed without scanning the key space.
 * <p>
 * Keys: {@code <prefix>:registry:{instances}:index} (sorted set, instance id by the time
 * it expires) and {@code <prefix>:registry:{instances}:instance:<id>} (the time of the
 * latest heartbeat and the description, JSON, with a time to live); one hash tag, so one
 * slot of a Redis Cluster. A queue's keys start with <code>&lt;prefix&gt;:{</code>, these
 * never do, so that no queue name, {@code instances} included, shares a key with them.
 * Costs: a heartbeat is one script call that also forgets the index's expired instances
 * and keeps at most {@value #MAX_INSTANCES}; a listing is a {@code ZRANGE} of the index
 * and one {@code MGET}, at most once a second however many callers ask. Memory: a few
 * hundred bytes per live instance.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class InstanceRegistry {

	/** The most instances the registry keeps (the latest heartbeats). */
	public static final int MAX_INSTANCES = 1000;

	private static final long LISTING_MAX_AGE_NANOS = Duration.ofSeconds(1).toNanos();

	private final InstanceRecords records;

	private @Nullable List<InstanceView> listed;

	private long listedAt;

	/**
	 * Create an instance.
	 * @param operations the queue operations, whose Redis and key prefix the registry
	 * shares
	 */
	public InstanceRegistry(RedisJobQueueOperations operations) {
		this.records = new InstanceRecords(operations.getStore());
	}

	/**
	 * Record a heartbeat of an instance: it is listed until {@code timeToLive} has passed
	 * without another.
	 * @param instance the instance (its {@link InstanceView#heartbeatAt()} is ignored:
	 * the Redis clock gives it)
	 * @param timeToLive how long it is listed without another heartbeat
	 */
	public void heartbeat(InstanceView instance, Duration timeToLive) {
		Assert.isTrue(timeToLive.toMillis() > 0, "The time to live of an instance must be positive");
		this.records.write(instance.id(), WireFormat.jsonMapper().writeValueAsString(instance), timeToLive,
				MAX_INSTANCES);
	}

	/**
	 * Remove an instance at once, as it stops.
	 * @param id the instance id
	 */
	public void remove(String id) {
		this.records.remove(id);
	}

	/**
	 * Return the live instances, latest heartbeat first, read from Redis at most once a
	 * second however many callers ask.
	 * @return the instances
	 */
	public synchronized List<InstanceView> instances() {
		if (this.listed == null || System.nanoTime() - this.listedAt > LISTING_MAX_AGE_NANOS) {
			this.listed = read();
			this.listedAt = System.nanoTime();
		}
		return this.listed;
	}

	/**
	 * Return the queues the live instances consume.
	 * @return their names, sorted
	 */
	public SortedSet<String> consumedQueues() {
		SortedSet<String> queues = new TreeSet<>();
		for (InstanceView instance : instances()) {
			instance.queues().forEach((queue) -> queues.add(queue.queue()));
		}
		return queues;
	}

	private List<InstanceView> read() {
		List<InstanceView> instances = new ArrayList<>();
		for (String description : this.records.read(MAX_INSTANCES)) {
			// an expired instance stays in the index until the next heartbeat of another
			InstanceView instance = (description != null) ? parse(description) : null;
			if (instance != null) {
				instances.add(instance);
			}
		}
		instances.sort(Comparator.comparing(InstanceView::heartbeatAt).reversed());
		return List.copyOf(instances);
	}

	// '<heartbeat time by the Redis clock> <description>'
	private @Nullable InstanceView parse(String stored) {
		int space = stored.indexOf(' ');
		try {
			Instant heartbeatAt = Instant.ofEpochMilli(Long.parseLong(stored.substring(0, space)));
			InstanceView instance = WireFormat.jsonMapper().readValue(stored.substring(space + 1), InstanceView.class);
			return new InstanceView(instance.id(), instance.application(), instance.host(), instance.pid(),
					instance.startedAt(), heartbeatAt,
					(instance.queues() != null) ? List.copyOf(instance.queues()) : List.of());
		}
		catch (RuntimeException ex) {
			// written by a version that this one cannot read
			return null;
		}
	}

}
