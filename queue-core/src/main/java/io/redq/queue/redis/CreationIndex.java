package io.redq.queue.redis;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.util.Assert;

/**
 * An index of batches or chains by creation time, for the dashboard and the endpoint: a
 * sorted set of ids scored by epoch milliseconds on the creating instance's clock (an
 * order for people to read, not a due time). Entries whose batch or chain expired are
 * dropped when a page reads them and, two picked at random, at each creation: so the
 * index holds about twice the entries kept at most, read or not.
 *
 * @author Redq team
 */
final class CreationIndex {

	private final StringRedisTemplate template;

	private final String key;

	private final Predicate<String> exists;

	/**
	 * Create an instance.
	 * @param template the template the calls run on
	 * @param key the key of the sorted set
	 * @param exists whether the batch or chain of an id is still kept
	 */
	CreationIndex(StringRedisTemplate template, String key, Predicate<String> exists) {
		this.template = template;
		this.key = key;
		this.exists = exists;
	}

	void add(String id) {
		ZSetOperations<String, String> index = this.template.opsForZSet();
		index.addIfAbsent(this.key, id, System.currentTimeMillis());
		Set<String> picked = index.distinctRandomMembers(this.key, 2);
		if (picked != null) {
			unlist(picked.stream().filter(this.exists.negate()).toList());
		}
	}

	Map<String, Instant> listed(int offset, int count) {
		Assert.isTrue(offset >= 0, () -> "offset must not be negative; got " + offset);
		Assert.isTrue(count >= 0 && count <= QueueStore.MAX_BATCH_SIZE,
				() -> "count must be between 0 and " + QueueStore.MAX_BATCH_SIZE + "; got " + count);
		Map<String, Instant> listed = new LinkedHashMap<>();
		if (count == 0) {
			return listed;
		}
		Set<TypedTuple<String>> page = this.template.opsForZSet()
			.reverseRangeWithScores(this.key, offset, offset + count - 1L);
		if (page != null) {
			for (TypedTuple<String> entry : page) {
				if (entry.getValue() != null && entry.getScore() != null) {
					listed.put(entry.getValue(), Instant.ofEpochMilli(entry.getScore().longValue()));
				}
			}
		}
		return listed;
	}

	long count() {
		Long count = this.template.opsForZSet().zCard(this.key);
		return (count != null) ? count : 0;
	}

	@Nullable Instant createdAt(String id) {
		Double score = this.template.opsForZSet().score(this.key, id);
		return (score != null) ? Instant.ofEpochMilli(score.longValue()) : null;
	}

	void unlist(Collection<String> ids) {
		if (!ids.isEmpty()) {
			this.template.opsForZSet().remove(this.key, ids.toArray());
		}
	}

}
