package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisHashAsyncCommands;
import io.redq.queue.core.JobPriority;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

/**
 * The raw reads of a queue's structures that inspection turns into its model, each
 * bounded by its arguments, and the few writes of its settings; inspection reaches Redis
 * through here alone, so that only this package knows the keys. A read of a sharded
 * queue's structures reads one shard: it takes one of {@link #shards(String)} for the
 * queue.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class QueueReader {

	private static final long SCAN_TIMEOUT_MILLIS = 10_000;

	/** The field of the stale hash that holds the total of the stale entries. */
	private static final String STALE_TOTAL = "";

	/**
	 * The lowest score in queued of a job below the default level: a level's band is
	 * {@code (HIGHEST - level) * BAND} (see common.lua), so the bands of the default
	 * level and those above lie below this. ZCOUNT's upper bound is inclusive, hence one
	 * less.
	 */
	private static final double BELOW_DEFAULT_LEVEL = (double) (JobPriority.HIGHEST - JobPriority.DEFAULT + 1)
			* QueueScripts.PRIORITY_BAND - 1;

	private final QueueStore store;

	private final StringRedisTemplate redis;

	/**
	 * Create an instance.
	 * @param store the queues to read
	 */
	public QueueReader(QueueStore store) {
		this.store = store;
		this.redis = store.getTemplate();
	}

	/**
	 * Return whether a queue has its model key, which every script writes, or the
	 * placement of its shards, which a sharded queue has before any of its shards is
	 * used: whether Redq ever used the queue. One {@code EXISTS} (both keys share the
	 * queue's slot). Not through the store, which keeps the keys of every queue it is
	 * asked about.
	 * @param queue a valid queue name
	 * @return whether it has been used
	 */
	public boolean hasModel(String queue) {
		Keyspace keyspace = this.store.getKeyspace();
		Long found = this.redis.countExistingKeys(List.of(keyspace.queue(queue).model(), keyspace.placement(queue)));
		return found != null && found > 0;
	}

	/**
	 * Return the shards of a queue, by the names the reads here take for one shard: the
	 * queue itself when it has one shard. Without a shard count for the queue in this
	 * instance, those of the placement stored in Redis, read afresh and never written.
	 * @param queue a valid queue name
	 * @return the shards, the queue's own keys first
	 */
	public List<String> shards(String queue) {
		return this.store.queueShards().shardsToOperate(queue);
	}

	/**
	 * Return the shard of a queue that holds a job, else the one its id maps to: one read
	 * per shard looked at, none for a queue of one shard.
	 * @param queue the queue
	 * @param id the job id
	 * @return the shard
	 */
	public String shardHolding(String queue, String id) {
		return this.store.shardChoice().shardHolding(queue, id, null);
	}

	/**
	 * Return where each shard of a queue lives: its hash tag, and on a Redis Cluster its
	 * slot and the master that serves it, as the client's view of the cluster says.
	 * @param queue a valid queue name
	 * @return the places, in the order of {@link #shards(String)}
	 */
	public List<ShardPlace> shardPlaces(String queue) {
		List<ShardPlace> places = this.redis.execute((RedisCallback<List<ShardPlace>>) (connection) -> {
			List<ShardPlace> found = new ArrayList<>();
			for (String shard : shards(queue)) {
				String tag = this.store.keys(shard).hashTag();
				if (connection instanceof RedisClusterConnection cluster) {
					int slot = ClusterSlotHashUtil.calculateSlot(tag);
					RedisClusterNode master = cluster.clusterGetNodeForSlot(slot);
					found.add(new ShardPlace(tag, slot, (master != null) ? master.asString() : null));
				}
				else {
					found.add(new ShardPlace(tag, null, null));
				}
			}
			return found;
		});
		return (places != null) ? places : List.of();
	}

	/**
	 * Start a scan of the key space for the queues' model keys.
	 * @return the scan, at its start
	 */
	public QueueScan queueScan() {
		return new QueueScan(this.redis, this.store.getKeyspace());
	}

	/**
	 * Return how many jobs of a queue are ready: those of every level, less the entries
	 * that stand for nothing any more. Three commands.
	 * @param queue the queue
	 * @return the count
	 */
	public long readyCount(String queue) {
		QueueKeys keys = this.store.keys(queue);
		Object stale = this.redis.opsForHash().get(keys.stale(), STALE_TOTAL);
		return size(this.redis.opsForZSet().zCard(keys.queued())) + size(this.redis.opsForList().size(keys.ready()))
				- ((stale != null) ? Long.parseLong((String) stale) : 0);
	}

	/**
	 * Return the ids of the ready jobs at positions {@code from} to {@code to} of the
	 * listing by level: the members of queued down to the default level (its groups),
	 * then the ready list (the default level without a group), then the lower levels. An
	 * id may stand for nothing any more (see {@link #countedStale(String, List)}).
	 * @param queue the queue
	 * @param from the first position
	 * @param to the last position, inclusive
	 * @return the ids
	 */
	public List<String> readyIds(String queue, long from, long to) {
		QueueKeys keys = this.store.keys(queue);
		long above = size(this.redis.opsForZSet().count(keys.queued(), Double.NEGATIVE_INFINITY, BELOW_DEFAULT_LEVEL));
		long ready = size(this.redis.opsForList().size(keys.ready()));
		List<String> ids = new ArrayList<>();
		if (from < above) {
			ids.addAll(this.redis.opsForZSet().range(keys.queued(), from, Math.min(to, above - 1)));
		}
		if (to >= above && from < above + ready) {
			ids.addAll(this.redis.opsForList().range(keys.ready(), Math.max(0, from - above), to - above));
		}
		if (to >= above + ready) {
			ids.addAll(this.redis.opsForZSet()
				.range(keys.queued(), above + Math.max(0, from - above - ready), to - ready));
		}
		return ids;
	}

	/**
	 * Return which of the given ids have entries in the ready lines that stand for
	 * nothing (see {@code unready} in common.lua): one {@code HMGET}.
	 * @param queue the queue
	 * @param ids ids read from the ready lines
	 * @return those of them counted stale
	 */
	public Set<String> countedStale(String queue, List<String> ids) {
		if (ids.isEmpty()) {
			return Set.of();
		}
		List<Object> counts = this.redis.opsForHash().multiGet(this.store.keys(queue).stale(), new ArrayList<>(ids));
		Set<String> stale = new HashSet<>();
		for (int i = 0; i < ids.size(); i++) {
			if (counts.get(i) != null) {
				stale.add(ids.get(i));
			}
		}
		return stale;
	}

	/**
	 * Return how many jobs a sorted set of a queue holds, the parked ones with the
	 * delayed ones.
	 * @param queue the queue
	 * @param set which set
	 * @return the count
	 */
	public long count(String queue, ScoredSet set) {
		QueueKeys keys = this.store.keys(queue);
		String key = set.key(keys);
		return switch (set) {
			// reserved's member at +inf (see RESERVED_END in common.lua) is no job
			case RESERVED -> finiteCount(key);
			// a parked job is its entry in lines: delayed's members at +inf are those
			// that data model 6 kept there too, left until the upgrade removes them
			case DELAYED -> finiteCount(key) + size(this.redis.opsForZSet().zCard(keys.lines()));
			case DEAD, COMPLETED -> size(this.redis.opsForZSet().zCard(key));
		};
	}

	private long finiteCount(String key) {
		return size(this.redis.opsForZSet().count(key, Double.NEGATIVE_INFINITY, Double.MAX_VALUE));
	}

	/**
	 * Return how many jobs of a queue died after a time.
	 * @param queue the queue
	 * @param after the time
	 * @return the count
	 */
	public long deadAfter(String queue, Instant after) {
		return size(this.redis.opsForZSet()
			.count(this.store.keys(queue).dead(), after.toEpochMilli() + 1, Double.POSITIVE_INFINITY));
	}

	/**
	 * Return a page of a sorted set of a queue with the time of each job, in the set's
	 * order: soonest first for the delayed and reserved jobs, latest first for the dead
	 * and completed ones. The delayed jobs are followed by the parked ones, in line order
	 * and without a time.
	 * @param queue the queue
	 * @param set which set
	 * @param from the first position
	 * @param to the last position, inclusive
	 * @return the jobs
	 */
	public List<Entry> entries(String queue, ScoredSet set, long from, long to) {
		QueueKeys keys = this.store.keys(queue);
		String key = set.key(keys);
		if (set != ScoredSet.DELAYED) {
			return scored(key, set, from, to);
		}
		// delayed's members at +inf, if any, come after the finite ones: none below this
		long due = finiteCount(key);
		List<Entry> entries = (from < due) ? scored(key, set, from, Math.min(to, due - 1)) : new ArrayList<>();
		if (to >= due) {
			entries.addAll(parked(keys, Math.max(0, from - due), to - due));
		}
		return entries;
	}

	private List<Entry> scored(String key, ScoredSet set, long from, long to) {
		Set<TypedTuple<String>> tuples = set.latestFirst ? this.redis.opsForZSet().reverseRangeWithScores(key, from, to)
				: this.redis.opsForZSet().rangeWithScores(key, from, to);
		List<Entry> entries = new ArrayList<>();
		if (tuples != null) {
			for (TypedTuple<String> tuple : tuples) {
				Double score = tuple.getScore();
				if ((set == ScoredSet.RESERVED || set == ScoredSet.DELAYED) && score != null && score.isInfinite()) {
					// reserved's last member, RESERVED_END in common.lua, is no job; a
					// delayed one at +inf is also in lines, read from there
					continue;
				}
				entries.add(new Entry(tuple.getValue(),
						(score != null && !score.isInfinite()) ? Instant.ofEpochMilli(score.longValue()) : null));
			}
		}
		return entries;
	}

	// a parked job's entry in lines is <gate>\0<arrival>\0<id>: a gate key may hold a
	// NUL, an id none
	private List<Entry> parked(QueueKeys keys, long from, long to) {
		Set<String> lines = this.redis.opsForZSet().range(keys.lines(), from, to);
		List<Entry> parked = new ArrayList<>();
		if (lines != null) {
			for (String line : lines) {
				parked.add(new Entry(line.substring(line.lastIndexOf('\0') + 1), null));
			}
		}
		return parked;
	}

	/**
	 * Return what the hashes of a queue hold of the given jobs: four {@code HMGET}, and a
	 * fifth for the stack traces when asked.
	 * @param queue the queue
	 * @param ids the job ids
	 * @param withTraces whether to read the stack traces
	 * @return the values, each list in the order of the ids
	 */
	public JobFields fields(String queue, List<String> ids, boolean withTraces) {
		QueueKeys keys = this.store.keys(queue);
		List<Object> fields = new ArrayList<>(ids);
		return new JobFields(strings(this.redis.opsForHash().multiGet(keys.jobs(), fields)),
				strings(this.redis.opsForHash().multiGet(keys.attempts(), fields)),
				strings(this.redis.opsForHash().multiGet(keys.leases(), fields)),
				strings(this.redis.opsForHash().multiGet(keys.errors(), fields)),
				withTraces ? strings(this.redis.opsForHash().multiGet(keys.traces(), fields)) : null);
	}

	/**
	 * Read a hash of a queue, id by id, one {@code HSCAN} call at a time while the reads
	 * allow.
	 * @param queue the queue
	 * @param hash the jobs hash (envelopes) or the errors hash
	 * @param idContains a text every id read contains, or {@code null} for every id
	 * @param batch the {@code COUNT} of each call
	 * @param mayRead asked before each call whether it may be made
	 * @param entry given each id and value read; returns whether to read on
	 * @return whether the scan ended at the end of the hash or where {@code entry}
	 * stopped it, not because the reads ran out
	 */
	public boolean scan(String queue, JobHash hash, @Nullable String idContains, int batch, BooleanSupplier mayRead,
			BiPredicate<String, String> entry) {
		QueueKeys keys = this.store.keys(queue);
		byte[] key = ((hash == JobHash.ERRORS) ? keys.errors() : keys.jobs()).getBytes(StandardCharsets.UTF_8);
		ScanArgs args = ScanArgs.Builder.limit(batch);
		if (idContains != null) {
			args.match("*" + Keyspace.escapeGlob(idContains) + "*");
		}
		return Boolean.TRUE.equals(this.redis.execute((RedisCallback<Boolean>) (connection) -> {
			RedisHashAsyncCommands<byte[], byte[]> commands = hashCommands(connection);
			ScanCursor cursor = ScanCursor.INITIAL;
			do {
				if (!mayRead.getAsBoolean()) {
					return false;
				}
				MapScanCursor<byte[], byte[]> read = LettuceFutures.awaitOrCancel(commands.hscan(key, cursor, args),
						SCAN_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
				for (Map.Entry<byte[], byte[]> field : read.getMap().entrySet()) {
					if (!entry.test(new String(field.getKey(), StandardCharsets.UTF_8),
							new String(field.getValue(), StandardCharsets.UTF_8))) {
						return true;
					}
				}
				cursor = read;
			}
			while (!cursor.isFinished());
			return true;
		}));
	}

	// HSCAN one call at a time, which the template's cursor does not do: it goes on by
	// itself over calls that return nothing
	@SuppressWarnings("unchecked")
	private static RedisHashAsyncCommands<byte[], byte[]> hashCommands(RedisConnection connection) {
		Object commands = connection.getNativeConnection();
		if (commands instanceof RedisHashAsyncCommands<?, ?> hashCommands) {
			return (RedisHashAsyncCommands<byte[], byte[]>) hashCommands;
		}
		throw new IllegalStateException("Searching the queues needs Lettuce, not " + commands.getClass());
	}

	/**
	 * Return the fields of a queue's statistics hash (see {@link QueueKeys#stats()}).
	 * @param queue the queue
	 * @return every field
	 */
	public Map<Object, Object> statistics(String queue) {
		return this.redis.opsForHash().entries(this.store.keys(queue).stats());
	}

	/**
	 * Return some fields of a queue's statistics hash.
	 * @param queue the queue
	 * @param fields the fields
	 * @return their values, in their order
	 */
	public List<Object> statistics(String queue, List<Object> fields) {
		return this.redis.opsForHash().multiGet(this.store.keys(queue).stats(), fields);
	}

	/**
	 * Set a field of a queue's statistics hash unless it holds the value already: one
	 * {@code HGET}, and an {@code HSET} when it differs.
	 * @param queue the queue
	 * @param field the field
	 * @param value the value
	 */
	public void setStatistic(String queue, String field, String value) {
		String stats = this.store.keys(queue).stats();
		if (!value.equals(this.redis.opsForHash().get(stats, field))) {
			this.redis.opsForHash().put(stats, field, value);
		}
	}

	/**
	 * Return a field of a recurring job's state (see
	 * {@link QueueKeys#recurring(String)}).
	 * @param queue the job's queue
	 * @param job the job's name
	 * @param field the field, e.g. {@code last}
	 * @return its value, or {@code null}
	 */
	public @Nullable String recurringState(String queue, String job, String field) {
		return (String) this.redis.opsForHash().get(this.store.keys(queue).recurring(job), field);
	}

	/**
	 * Return the start of a job's stored result (see {@link QueueKeys#result(String)}),
	 * with its size.
	 * @param queue the job's queue
	 * @param id the job's id
	 * @param maxBytes the most bytes to read
	 * @return its first bytes and its size, or {@code null} when none is stored
	 */
	public @Nullable ResultStart result(String queue, String id, int maxBytes) {
		String key = this.store.keys(this.store.shardChoice().shardHolding(queue, id, null)).result(id);
		long size = size(this.redis.opsForValue().size(key));
		String start = (size > 0) ? this.redis.opsForValue().get(key, 0, maxBytes - 1L) : null;
		return (start != null) ? new ResultStart(start, size) : null;
	}

	/**
	 * Return the time by the Redis clock.
	 * @return the time in epoch milliseconds, or this JVM's when Redis gave none
	 */
	public long redisTime() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return (now != null) ? now : System.currentTimeMillis();
	}

	private static List<@Nullable String> strings(List<Object> values) {
		List<@Nullable String> strings = new ArrayList<>(values.size());
		values.forEach((value) -> strings.add((String) value));
		return strings;
	}

	private static long size(@Nullable Long size) {
		return (size != null) ? size : 0;
	}

	/**
	 * The start of a stored result.
	 *
	 * @param text its first bytes, as text
	 * @param size its size in bytes
	 */
	public record ResultStart(String text, long size) {
	}

	/**
	 * A sorted set of a queue's jobs.
	 */
	public enum ScoredSet {

		/**
		 * The delayed jobs by due time, then the jobs parked behind gates in line order.
		 */
		DELAYED(false),

		/** The reserved jobs by lease expiry. */
		RESERVED(false),

		/** The dead jobs by time of death. */
		DEAD(true),

		/** The latest completed jobs by completion time, when kept. */
		COMPLETED(true);

		private final boolean latestFirst;

		ScoredSet(boolean latestFirst) {
			this.latestFirst = latestFirst;
		}

		/**
		 * Return whether the set is listed latest first rather than soonest first.
		 * @return whether it is listed latest first
		 */
		public boolean latestFirst() {
			return this.latestFirst;
		}

		private String key(QueueKeys keys) {
			return switch (this) {
				case DELAYED -> keys.delayed();
				case RESERVED -> keys.reserved();
				case DEAD -> keys.dead();
				case COMPLETED -> keys.completed();
			};
		}

	}

	/**
	 * A hash of a queue's jobs by id that can be searched.
	 */
	public enum JobHash {

		/** The envelopes. */
		JOBS,

		/** The last errors. */
		ERRORS

	}

	/**
	 * Where a shard of a queue lives.
	 *
	 * @param hashTag the hash tag its keys share, e.g. <code>{mail#2}</code>
	 * @param slot its Redis Cluster slot, or {@code null} without a cluster
	 * @param master the address of the master that serves the slot, or {@code null}
	 * without a cluster or while no master serves it
	 */
	public record ShardPlace(String hashTag, @Nullable Integer slot, @Nullable String master) {

	}

	/**
	 * A job of a sorted set.
	 *
	 * @param id the job id
	 * @param at its score as a time, or {@code null} when it has none
	 */
	public record Entry(String id, @Nullable Instant at) {

	}

	/**
	 * What the hashes of a queue hold of some jobs, each list in the order of the ids
	 * asked for, {@code null} where a hash holds nothing of a job.
	 *
	 * @param envelopes the envelopes
	 * @param attempts the attempts made
	 * @param leases the lease tokens
	 * @param errors the last errors
	 * @param traces the stack traces of the last failures, or {@code null} when not read
	 */
	public record JobFields(List<@Nullable String> envelopes, List<@Nullable String> attempts,
			List<@Nullable String> leases, List<@Nullable String> errors, @Nullable List<@Nullable String> traces) {

	}

}
