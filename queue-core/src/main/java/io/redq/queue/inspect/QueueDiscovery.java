package io.redq.queue.inspect;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.Keyspace;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The one list of an application's queues: those of its jobs (read from memory), those
 * the live {@link InstanceRegistry instances} consume (one read of the registry, at most
 * once a second), and, as the fallback for queues no instance consumes (a job sent to a
 * queue nobody handles), those whose model key a {@code SCAN} of the key space finds.
 * <p>
 * The scan is bounded: each round, at most once per discovery interval, sends at most
 * {@value #SCAN_CALLS_PER_ROUND} {@code SCAN} calls of {@code COUNT} {@value #SCAN_COUNT}
 * (on every master of a Redis Cluster) and goes on where the round before stopped, so
 * that no round's cost grows with the key space; a pass over the key space of {@code K}
 * keys takes about {@code K / 10,000} rounds. A queue found stays listed until a whole
 * pass no longer finds it.
 *
 * @author Redq team
 * @since 0.1.0
 */
class QueueDiscovery {

	static final int SCAN_CALLS_PER_ROUND = 10;

	static final int SCAN_COUNT = 1000;

	private static final long SCAN_TIMEOUT_MILLIS = 10_000;

	private final JobDefinitions jobs;

	private final Keyspace keyspace;

	private final StringRedisTemplate redis;

	private Duration interval = Duration.ofSeconds(30);

	private @Nullable InstanceRegistry instances;

	private volatile long roundAt;

	private volatile boolean roundOnce;

	/** The queues of the latest whole pass, and of the pass under way. */
	private volatile Set<String> passed = Set.of();

	private final Set<String> passing = new TreeSet<>();

	private @Nullable ScanCursor cursor;

	QueueDiscovery(JobDefinitions jobs, Keyspace keyspace, StringRedisTemplate redis) {
		this.jobs = jobs;
		this.keyspace = keyspace;
		this.redis = redis;
	}

	void setInterval(Duration interval) {
		this.interval = interval;
	}

	void setInstances(@Nullable InstanceRegistry instances) {
		this.instances = instances;
	}

	@Nullable InstanceRegistry getInstances() {
		return this.instances;
	}

	SortedSet<String> handledQueues() {
		SortedSet<String> queues = new TreeSet<>();
		for (JobDefinition job : this.jobs.all()) {
			if (job.payloadType() != null) {
				queues.add(job.queue());
			}
		}
		return queues;
	}

	SortedSet<String> knownQueues() {
		SortedSet<String> queues = new TreeSet<>();
		for (JobDefinition job : this.jobs.all()) {
			queues.add(job.queue());
		}
		return queues;
	}

	SortedSet<String> queueNames() {
		SortedSet<String> queues = knownQueues();
		if (this.instances != null) {
			queues.addAll(this.instances.consumedQueues());
		}
		queues.addAll(scannedQueues());
		return queues;
	}

	boolean exists(String queue) {
		if (knownQueues().contains(queue)) {
			return true;
		}
		if (!isValidQueueName(queue)) {
			return false;
		}
		if (this.instances != null && this.instances.consumedQueues().contains(queue)) {
			return true;
		}
		if (this.interval.isNegative()) {
			return false;
		}
		// not through the store, which keeps the keys of every queue it is asked about
		return Boolean.TRUE.equals(this.redis.hasKey(this.keyspace.queue(queue).model()));
	}

	private Set<String> scannedQueues() {
		if (this.interval.isNegative()) {
			return Set.of();
		}
		if (!this.roundOnce || System.nanoTime() - this.roundAt >= this.interval.toNanos()) {
			synchronized (this) {
				if (!this.roundOnce || System.nanoTime() - this.roundAt >= this.interval.toNanos()) {
					scanRound();
					this.roundAt = System.nanoTime();
					this.roundOnce = true;
				}
			}
		}
		Set<String> passed = this.passed;
		synchronized (this) {
			if (this.passing.isEmpty()) {
				return passed;
			}
			Set<String> queues = new TreeSet<>(passed);
			queues.addAll(this.passing);
			return queues;
		}
	}

	// every script records the queue's data model, so each queue Redq ever used has a
	// model key, kept even by a purge
	private void scanRound() {
		ScanArgs args = ScanArgs.Builder.matches(this.keyspace.queueModelPattern()).limit(SCAN_COUNT);
		try {
			this.redis.execute((RedisCallback<@Nullable Void>) (connection) -> scanRound(commands(connection), args));
		}
		catch (RuntimeException ex) {
			// the next round starts a pass again
			this.cursor = null;
			this.passing.clear();
			throw ex;
		}
	}

	private @Nullable Void scanRound(RedisKeyAsyncCommands<byte[], byte[]> commands, ScanArgs args) {
		for (int call = 0; call < SCAN_CALLS_PER_ROUND; call++) {
			ScanCursor from = (this.cursor != null) ? this.cursor : ScanCursor.INITIAL;
			KeyScanCursor<byte[]> batch = LettuceFutures.awaitOrCancel(commands.scan(from, args), SCAN_TIMEOUT_MILLIS,
					TimeUnit.MILLISECONDS);
			for (byte[] key : batch.getKeys()) {
				add(new String(key, StandardCharsets.UTF_8));
			}
			if (batch.isFinished()) {
				this.passed = Collections.unmodifiableSet(new TreeSet<>(this.passing));
				this.passing.clear();
				this.cursor = null;
				return null;
			}
			this.cursor = batch;
		}
		return null;
	}

	private void add(String key) {
		String queue = this.keyspace.queueOfModelKey(key);
		if (queue != null && this.passing.size() < JobQueueInspector.MAX_DISCOVERED_QUEUES) {
			this.passing.add(queue);
		}
	}

	// on a Redis Cluster, Lettuce's SCAN goes over every master, its cursor saying where
	@SuppressWarnings("unchecked")
	private static RedisKeyAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
		Object commands = connection.getNativeConnection();
		if (commands instanceof RedisKeyAsyncCommands<?, ?> keyCommands) {
			return (RedisKeyAsyncCommands<byte[], byte[]>) keyCommands;
		}
		throw new IllegalStateException("Finding the queues in Redis needs Lettuce, not " + commands.getClass());
	}

	static boolean isValidQueueName(String queue) {
		try {
			QueueNames.validate(queue);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

}
