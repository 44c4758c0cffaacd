package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A scan of the key space for the queues' model keys (see
 * {@link Keyspace#queueModelPattern()}), a few {@code SCAN} calls at a time, each round
 * going on where the one before stopped; on a Redis Cluster, over every master.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class QueueScan {

	private static final long SCAN_TIMEOUT_MILLIS = 10_000;

	private final StringRedisTemplate redis;

	private final Keyspace keyspace;

	private @Nullable ScanCursor cursor;

	QueueScan(StringRedisTemplate redis, Keyspace keyspace) {
		this.redis = redis;
		this.keyspace = keyspace;
	}

	/**
	 * Make at most {@code calls} {@code SCAN} calls of {@code COUNT} {@code count} from
	 * where the last round stopped. A round that fails leaves the scan at its start.
	 * @param calls the most calls
	 * @param count the {@code COUNT} of each call
	 * @param found given the name of each queue found (a queue may be found twice)
	 * @return whether the round reached the end of the key space, after which the next
	 * round starts over
	 */
	public synchronized boolean round(int calls, int count, Consumer<String> found) {
		ScanArgs args = ScanArgs.Builder.matches(this.keyspace.queueModelPattern()).limit(count);
		try {
			return Boolean.TRUE.equals(this.redis
				.execute((RedisCallback<Boolean>) (connection) -> round(commands(connection), args, calls, found)));
		}
		catch (RuntimeException ex) {
			this.cursor = null;
			throw ex;
		}
	}

	private boolean round(RedisKeyAsyncCommands<byte[], byte[]> commands, ScanArgs args, int calls,
			Consumer<String> found) {
		for (int call = 0; call < calls; call++) {
			ScanCursor from = (this.cursor != null) ? this.cursor : ScanCursor.INITIAL;
			KeyScanCursor<byte[]> batch = LettuceFutures.awaitOrCancel(commands.scan(from, args), SCAN_TIMEOUT_MILLIS,
					TimeUnit.MILLISECONDS);
			for (byte[] key : batch.getKeys()) {
				String queue = this.keyspace.queueOfModelKey(new String(key, StandardCharsets.UTF_8));
				if (queue != null) {
					found.accept(queue);
				}
			}
			if (batch.isFinished()) {
				this.cursor = null;
				return true;
			}
			this.cursor = batch;
		}
		return false;
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

}
