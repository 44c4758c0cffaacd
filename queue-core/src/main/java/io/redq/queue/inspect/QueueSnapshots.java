package io.redq.queue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.RedisJobQueueOperations;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The queues' counts and statistics series: read now, or at most a second old so that any
 * number of callers share one read per queue and second; and the statistics retention
 * each queue's ring of hourly buckets keeps.
 *
 * @author Redq team
 * @since 0.1.0
 */
class QueueSnapshots {

	private static final long MAX_AGE_NANOS = Duration.ofSeconds(1).toNanos();

	private static final String STATISTICS_HOURS_FIELD = "hours";

	private static final int MINUTES = 60;

	private static final List<Object> MINUTE_FIELDS = IntStream.range(0, MINUTES)
		.mapToObj((slot) -> (Object) ("m" + slot))
		.toList();

	private final RedisJobQueueOperations operations;

	private final QueueReader reader;

	private final Map<String, Recent<QueueSnapshot>> snapshots = new ConcurrentHashMap<>();

	private final Map<String, Recent<QueueStatistics>> statistics = new ConcurrentHashMap<>();

	private final Map<String, Recent<List<QueueStatistics.Bucket>>> minutes = new ConcurrentHashMap<>();

	private int statisticsHours = JobQueueInspector.DEFAULT_STATISTICS_HOURS;

	QueueSnapshots(RedisJobQueueOperations operations, QueueReader reader) {
		this.operations = operations;
		this.reader = reader;
	}

	QueueSnapshot snapshot(String queue) {
		QueueSnapshot snapshot = this.operations.snapshot(queue);
		recent(this.snapshots, queue, this.operations::snapshot).set(snapshot);
		return snapshot;
	}

	QueueSnapshot recentSnapshot(String queue) {
		return recent(this.snapshots, queue, this.operations::snapshot).get();
	}

	QueueStatistics statistics(String queue) {
		return recent(this.statistics, queue, this::readStatistics).get();
	}

	List<QueueStatistics.Bucket> minutes(String queue) {
		return recent(this.minutes, queue, this::readMinutes).get();
	}

	void setStatisticsRetention(Duration retention) {
		long hours = retention.toHours();
		Assert.isTrue(hours >= 1 && hours <= JobQueueInspector.MAX_STATISTICS_HOURS,
				() -> "The statistics retention must be 1 hour to 30 days, not " + retention);
		this.statisticsHours = (int) hours;
	}

	void applyStatisticsRetention(Collection<String> queues) {
		String hours = Integer.toString(this.statisticsHours);
		for (String queue : queues) {
			for (String shard : this.reader.shards(queue)) {
				this.reader.setStatistic(shard, STATISTICS_HOURS_FIELD, hours);
			}
		}
	}

	private static <T> Recent<T> recent(Map<String, Recent<T>> recent, String queue, Function<String, T> read) {
		return recent.computeIfAbsent(queue, (name) -> new Recent<>(() -> read.apply(name)));
	}

	// each shard counts the jobs it finished: the queue's buckets add them up
	private QueueStatistics readStatistics(String queue) {
		List<Map<Object, Object>> shards = this.reader.shards(queue).stream().map(this.reader::statistics).toList();
		long minute = redisMinute();
		Object stored = shards.get(0).get(STATISTICS_HOURS_FIELD);
		int hours = (stored != null) ? Integer.parseInt((String) stored) : JobQueueInspector.DEFAULT_STATISTICS_HOURS;
		return new QueueStatistics(sum(shards, (fields) -> buckets(fields, "m", minute, MINUTES, 60_000)),
				sum(shards, (fields) -> buckets(fields, "h", minute / 60, hours, 3_600_000)));
	}

	// the minutes alone: 60 fields per shard, however many hours the retention keeps
	private List<QueueStatistics.Bucket> readMinutes(String queue) {
		List<Map<Object, Object>> shards = new ArrayList<>();
		for (String shard : this.reader.shards(queue)) {
			List<Object> values = this.reader.statistics(shard, MINUTE_FIELDS);
			Map<Object, Object> fields = new HashMap<>();
			for (int slot = 0; slot < MINUTES; slot++) {
				if (values.get(slot) != null) {
					fields.put(MINUTE_FIELDS.get(slot), values.get(slot));
				}
			}
			shards.add(fields);
		}
		long minute = redisMinute();
		return sum(shards, (fields) -> buckets(fields, "m", minute, MINUTES, 60_000));
	}

	private static List<QueueStatistics.Bucket> sum(List<Map<Object, Object>> shards,
			Function<Map<Object, Object>, List<QueueStatistics.Bucket>> buckets) {
		List<QueueStatistics.Bucket> sum = buckets.apply(shards.get(0));
		for (Map<Object, Object> shard : shards.subList(1, shards.size())) {
			List<QueueStatistics.Bucket> more = buckets.apply(shard);
			for (int i = 0; i < sum.size(); i++) {
				QueueStatistics.Bucket a = sum.get(i);
				QueueStatistics.Bucket b = more.get(i);
				sum.set(i, new QueueStatistics.Bucket(a.start(), a.completed() + b.completed(), a.failed() + b.failed(),
						a.dead() + b.dead()));
			}
		}
		return sum;
	}

	private long redisMinute() {
		return this.reader.redisTime() / 60_000;
	}

	// a bucket counts only when it holds the index asked for: else it is from an older
	// round of its ring, and nothing was counted since
	private static List<QueueStatistics.Bucket> buckets(Map<Object, Object> fields, String ring, long current, int size,
			long millis) {
		List<QueueStatistics.Bucket> buckets = new ArrayList<>(size);
		for (long index = current - size + 1; index <= current; index++) {
			long completed = 0;
			long failed = 0;
			long dead = 0;
			Object value = fields.get(ring + Math.floorMod(index, size));
			if (value != null) {
				String[] parts = ((String) value).split(" ");
				if (parts.length == 4 && Long.parseLong(parts[0]) == index) {
					completed = Long.parseLong(parts[1]);
					failed = Long.parseLong(parts[2]);
					dead = Long.parseLong(parts[3]);
				}
			}
			buckets.add(new QueueStatistics.Bucket(Instant.ofEpochMilli(index * millis), completed, failed, dead));
		}
		return buckets;
	}

	/**
	 * One queue's latest value of a kind; one reader at a time, so that callers arriving
	 * together share one read.
	 */
	private static final class Recent<T> {

		private final Supplier<T> read;

		private @Nullable T value;

		private long readAt;

		Recent(Supplier<T> read) {
			this.read = read;
		}

		synchronized T get() {
			if (this.value == null || System.nanoTime() - this.readAt > MAX_AGE_NANOS) {
				set(this.read.get());
			}
			return this.value;
		}

		synchronized void set(T value) {
			this.value = value;
			this.readAt = System.nanoTime();
		}

	}

}
