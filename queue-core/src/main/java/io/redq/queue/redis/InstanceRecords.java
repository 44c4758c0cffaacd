package io.redq.queue.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The application instances' records in Redis, beside the queues (see
 * {@link Keyspace#instanceIndex()}): each instance's latest heartbeat and description
 * under a key of its own that expires unless the next heartbeat comes in time, and an
 * index of the instances by when each expires.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class InstanceRecords {

	private static final RedisScript<Long> HEARTBEAT = script();

	private final StringRedisTemplate redis;

	private final Keyspace keyspace;

	/**
	 * Create an instance.
	 * @param store the queues, whose Redis and key prefix the records share
	 */
	public InstanceRecords(QueueStore store) {
		this.redis = store.getTemplate();
		this.keyspace = store.getKeyspace();
	}

	/**
	 * Write an instance's record, by the Redis clock, and forget the expired ones: one
	 * script call.
	 * @param id the instance id
	 * @param description what to keep of it
	 * @param timeToLive how long the record lives without another write
	 * @param max the most instances the index keeps (those expiring last)
	 */
	public void write(String id, String description, Duration timeToLive, int max) {
		this.redis.execute(HEARTBEAT, List.of(this.keyspace.instanceIndex(), this.keyspace.instance(id)), id,
				description, Long.toString(timeToLive.toMillis()), Integer.toString(max));
	}

	/**
	 * Remove an instance's record at once.
	 * @param id the instance id
	 */
	public void remove(String id) {
		this.redis.delete(this.keyspace.instance(id));
		this.redis.opsForZSet().remove(this.keyspace.instanceIndex(), id);
	}

	/**
	 * Read the records of the instances that expire last: a {@code ZRANGE} of the index
	 * and one {@code MGET}.
	 * @param max the most records to read
	 * @return each record, {@code '<heartbeat time, epoch ms> <description>'}, or
	 * {@code null} for an instance expired since the index's last clean-up
	 */
	public List<@Nullable String> read(int max) {
		Set<String> ids = this.redis.opsForZSet().reverseRange(this.keyspace.instanceIndex(), 0, max - 1);
		if (ids == null || ids.isEmpty()) {
			return List.of();
		}
		List<String> records = this.redis.opsForValue().multiGet(ids.stream().map(this.keyspace::instance).toList());
		return (records != null) ? records : List.of();
	}

	private static RedisScript<Long> script() {
		ClassPathResource resource = new ClassPathResource("instance-heartbeat.lua", InstanceRecords.class);
		try {
			return RedisScript.of(resource.getContentAsString(StandardCharsets.UTF_8), Long.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Redq script " + resource, ex);
		}
	}

}
