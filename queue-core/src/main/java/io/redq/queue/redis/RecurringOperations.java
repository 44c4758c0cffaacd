package io.redq.queue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.script.RecurringScripts;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The recurring job scheduler's calls: enqueue a tick once across instances, pause and
 * resume a job, read its state, and the Redis clock that ticks are measured on.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class RecurringOperations {

	/** Longest round trip whose Redis time still adjusts the clock offset. */
	private static final long MAX_CLOCK_ROUND_TRIP_MILLIS = 100;

	private final QueueStore store;

	private final EnqueueOperations enqueueOperations;

	private final RecurringScripts scripts;

	/** Redis clock minus this JVM's clock, in milliseconds. */
	private volatile long clockOffset;

	private volatile boolean clockKnown;

	/**
	 * Create an instance.
	 * @param operations the queues the ticks are enqueued in, whose metrics hear of each
	 * tick enqueued
	 * @param scripts the recurring job scripts
	 */
	public RecurringOperations(RedisJobQueueOperations operations, RecurringScripts scripts) {
		this.store = operations.getStore();
		this.enqueueOperations = operations.getEnqueueOperations();
		this.scripts = scripts;
	}

	/**
	 * Return the keys of a recurring job: its queue's keys, then its state.
	 * @param job the job
	 * @return the keys the scripts take
	 */
	public Keys keys(JobDefinition job) {
		QueueKeys queueKeys = this.store.keys(job.queue());
		String state = queueKeys.recurring(job.name());
		List<String> keys = new ArrayList<>(queueKeys.all());
		keys.add(state);
		return new Keys(state, List.copyOf(keys));
	}

	/**
	 * Enqueue a tick of a job unless it was enqueued already (by any instance) or is not
	 * due yet on the Redis clock, or the job is paused, and tell the dispatch
	 * interceptors the tick met how it ended: dispatched when Redis has the tick's job
	 * (enqueued by this instance or by another), failed when it is not due yet, paused,
	 * or missed.
	 * @param job the tick's run, prepared as a dispatch under the tick's job id
	 * @param keys the job's keys
	 * @param tick the tick, in epoch milliseconds
	 * @param catchUp whether this is the one run for missed ticks, which is due at once
	 * @return what happened, with the Redis time
	 */
	public Tick tick(PreparedJob job, Keys keys, long tick, boolean catchUp) {
		long before = System.currentTimeMillis();
		List<?> result;
		try {
			result = template().execute(this.scripts.tick(), keys.all(), Long.toString(tick), catchUp ? "c" : "t",
					job.id(), job.command().body());
		}
		catch (RuntimeException ex) {
			job.failed(ex);
			throw ex;
		}
		long now = ((Number) result.get(1)).longValue();
		adjustClock(now, before, System.currentTimeMillis());
		// the codes of recurring-tick.lua: 0 not due yet, 1 enqueued, 2 handled already,
		// 3 paused, 4 nothing recorded before
		int status = ((Number) result.get(0)).intValue();
		if (status == 1) {
			this.enqueueOperations.entered(job.queue(), job.jobName());
		}
		if (status == 1 || status == 2) {
			job.dispatched();
		}
		else {
			job.failed(new IllegalStateException("Tick " + Instant.ofEpochMilli(tick) + " of recurring job '"
					+ job.jobName() + "' not enqueued: " + switch (status) {
						case 0 -> "not due yet on the Redis clock; it is tried again at its time";
						case 3 -> "the job is paused";
						default -> "the first start records the latest tick instead of catching up";
					}));
		}
		return new Tick(status == 1, status == 0, now);
	}

	/**
	 * Pause or resume a job's ticks.
	 * @param keys the job's keys
	 * @param paused whether to pause
	 * @return whether this changed the job's state
	 */
	public boolean setPaused(Keys keys, boolean paused) {
		Long changed = template().execute(this.scripts.pause(), keys.all(), paused ? "1" : "0");
		return changed != null && changed == 1L;
	}

	/**
	 * Return whether a job's ticks are paused.
	 * @param keys the job's keys
	 * @return whether it is paused
	 */
	public boolean isPaused(Keys keys) {
		return template().opsForHash().hasKey(keys.state(), "paused");
	}

	/**
	 * Return the Redis time, estimated from this JVM's clock and the offset the latest
	 * calls measured; the first call asks Redis.
	 * @return the Redis time, in epoch milliseconds
	 */
	public long now() {
		if (!this.clockKnown) {
			syncClock();
		}
		return System.currentTimeMillis() + this.clockOffset;
	}

	/**
	 * Ask Redis for its time, and adjust the offset to it.
	 * @return the Redis time, in epoch milliseconds
	 */
	public long syncClock() {
		long before = System.currentTimeMillis();
		Long now = template()
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MILLISECONDS));
		Assert.state(now != null, "Redis returned no time");
		adjustClock(now, before, System.currentTimeMillis());
		return now;
	}

	private void adjustClock(long redisNow, long before, long after) {
		// the Redis time was taken somewhere in the round trip: a slow one (Redis
		// blocked, say) says little about the offset
		if (!this.clockKnown || after - before <= MAX_CLOCK_ROUND_TRIP_MILLIS) {
			this.clockOffset = redisNow - (before + after) / 2;
			this.clockKnown = true;
		}
	}

	private StringRedisTemplate template() {
		return this.store.getTemplate();
	}

	/**
	 * The keys of one recurring job.
	 *
	 * @param state the job's state hash
	 * @param all the keys the scripts take: the queue's keys, then the state
	 */
	public record Keys(String state, List<String> all) {

	}

	/**
	 * What happened to a tick.
	 *
	 * @param enqueued whether this call enqueued it
	 * @param notDue whether it is not due yet on the Redis clock, so that nothing
	 * happened
	 * @param now the Redis time of the call, in epoch milliseconds
	 */
	public record Tick(boolean enqueued, boolean notDue, long now) {

	}

}
