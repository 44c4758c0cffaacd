package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JacksonException;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The calls of the listener containers on what a run leaves behind: the progress, cursor
 * and finished steps it keeps across its attempts, and the result it returns.
 *
 * @author Redq team
 * @since 0.1.0
 * @see ListenerOperations#getProgressOperations()
 */
public final class ProgressOperations {

	/**
	 * The field of a job's progress hash that holds the creation time of the job that
	 * wrote it (see {@code progress.lua}).
	 */
	private static final String PROGRESS_TAG = "t";

	/** The default largest result kept, in bytes of its JSON. */
	public static final int DEFAULT_RESULT_MAX_SIZE = 64 * 1024;

	/** The default time a completed job's result is kept. */
	public static final Duration DEFAULT_RESULT_TIME_TO_LIVE = Duration.ofHours(1);

	/** The default shortest time between two progress writes of a run. */
	public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(1);

	/**
	 * The default time a job's progress, cursor and steps are kept after their last
	 * write.
	 */
	public static final Duration DEFAULT_PROGRESS_TIME_TO_LIVE = Duration.ofDays(7);

	private final QueueStore store;

	private Duration resultTimeToLive = DEFAULT_RESULT_TIME_TO_LIVE;

	private int resultMaxSize = DEFAULT_RESULT_MAX_SIZE;

	private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;

	private Duration progressTimeToLive = DEFAULT_PROGRESS_TIME_TO_LIVE;

	ProgressOperations(QueueStore store) {
		this.store = store;
	}

	/**
	 * Set how long a completed job's result is kept.
	 * @param resultTimeToLive the retention of results, at least a millisecond
	 */
	public void setResultTimeToLive(Duration resultTimeToLive) {
		Assert.isTrue(resultTimeToLive.toMillis() > 0, "resultTimeToLive must be at least 1ms");
		this.resultTimeToLive = resultTimeToLive;
	}

	/** Return how long a completed job's result is kept: the acknowledgement keeps it. */
	Duration getResultTimeToLive() {
		return this.resultTimeToLive;
	}

	/**
	 * Set the largest result kept, in bytes of its JSON: a job that returns a larger one
	 * fails instead.
	 * @param resultMaxSize the largest result, at least 1
	 */
	public void setResultMaxSize(int resultMaxSize) {
		Assert.isTrue(resultMaxSize > 0, "resultMaxSize must be positive");
		this.resultMaxSize = resultMaxSize;
	}

	/**
	 * Set the shortest time between two writes of a run's progress and cursor: a handler
	 * that reports more often has only its latest values written.
	 * @param progressInterval the interval, at least a millisecond
	 */
	public void setProgressInterval(Duration progressInterval) {
		Assert.isTrue(progressInterval.toMillis() > 0, "progressInterval must be at least 1ms");
		this.progressInterval = progressInterval;
	}

	/**
	 * Return the shortest time between two writes of a run's progress and cursor.
	 * @return the interval
	 */
	public Duration getProgressInterval() {
		return this.progressInterval;
	}

	/**
	 * Set how long a job's progress, cursor and finished steps are kept after their last
	 * write: they go when the job completes, and outlive its other ends (death,
	 * cancellation, purge) by at most this time. Longer than a job waits between two
	 * attempts, which resume at the cursor kept.
	 * @param progressTimeToLive the retention, at least a millisecond
	 */
	public void setProgressTimeToLive(Duration progressTimeToLive) {
		Assert.isTrue(progressTimeToLive.toMillis() > 0, "progressTimeToLive must be at least 1ms");
		this.progressTimeToLive = progressTimeToLive;
	}

	/**
	 * Write what a running job keeps across its attempts (its progress, cursor and
	 * finished steps), if the run still holds the job's lease.
	 * @param queue the queue
	 * @param lease the run's lease
	 * @param tag the job's creation time (epoch ms), which tells a hash left by an
	 * earlier job of the same id
	 * @param fields the fields to write, see {@link #readProgress}
	 * @return {@code false} when the run no longer holds the lease (nothing was written)
	 */
	public boolean writeProgress(String queue, Lease lease, long tag, Map<String, String> fields) {
		QueueKeys keys = this.store.keys(ShardNames.shardOfToken(queue, lease.token()));
		List<String> scriptKeys = new ArrayList<>(keys.all());
		scriptKeys.add(keys.progress(lease.id()));
		List<String> args = new ArrayList<>(4 + 2 * fields.size());
		args.add(lease.id());
		args.add(ShardNames.inShard(lease).token());
		args.add(QueueStore.millis(this.progressTimeToLive));
		args.add(Long.toString(tag));
		fields.forEach((field, value) -> {
			args.add(field);
			args.add(value);
		});
		Long written = this.store.getTemplate().execute(this.store.getScripts().progress(), scriptKeys, args.toArray());
		return written != null && written == 1L;
	}

	/**
	 * Read fields of what a job kept across its attempts, when it was kept for this job
	 * rather than an earlier one of the same id: one {@code HMGET} of the fields named,
	 * since a job may keep any number of steps.
	 * @param queue the queue
	 * @param id the job id
	 * @param tag the job's creation time (epoch ms)
	 * @param fields the fields to read (see {@link ProgressFields})
	 * @return the fields present, empty when none is
	 */
	public Map<String, String> readProgress(String queue, String id, long tag, List<String> fields) {
		// the tag tells the job's own hash: only the job's shard has it
		for (String shard : this.store.shardChoice().shardsOfId(queue, id)) {
			Map<String, String> read = readProgressOf(shard, id, tag, fields);
			if (read != null) {
				return read;
			}
		}
		return Map.of();
	}

	/**
	 * Read fields of a job's progress, as {@link #readProgress} does, in the shard that
	 * holds the job.
	 * @param shard the shard
	 * @param id the job id
	 * @param tag the job's creation time (epoch ms)
	 * @param fields the fields to read (see {@link ProgressFields})
	 * @return the fields present, or {@code null} when the shard keeps no progress of the
	 * job
	 */
	@Nullable Map<String, String> readProgressOf(String shard, String id, long tag, List<String> fields) {
		List<Object> asked = new ArrayList<>(fields.size() + 1);
		asked.add(PROGRESS_TAG);
		asked.addAll(fields);
		List<Object> values = this.store.getTemplate()
			.opsForHash()
			.multiGet(this.store.keys(shard).progress(id), asked);
		if (!Long.toString(tag).equals(values.get(0))) {
			return null;
		}
		Map<String, String> read = new HashMap<>();
		for (int i = 0; i < fields.size(); i++) {
			if (values.get(i + 1) != null) {
				read.put(fields.get(i), (String) values.get(i + 1));
			}
		}
		return read;
	}

	/**
	 * Write a job's result in Redq's wire format (JSON), to be acknowledged with the job.
	 * @param id the job id
	 * @param result the value the job's handler returned
	 * @return the JSON
	 * @throws IllegalArgumentException when the result cannot be written as JSON or is
	 * larger than the {@link #setResultMaxSize maximum size}, saying which and what to do
	 */
	public String writeResult(String id, Object result) {
		byte[] json;
		try {
			json = WireFormat.jsonMapper().writeValueAsBytes(result);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Result of job " + id + " (a " + result.getClass().getName()
					+ ") cannot be written as JSON: " + ex.getOriginalMessage(), ex);
		}
		if (json.length > this.resultMaxSize) {
			throw new IllegalArgumentException("Result of job " + id + " is " + json.length + " bytes of JSON, over "
					+ "the limit of " + this.resultMaxSize + " (redq.results.max-size): return a smaller result, such "
					+ "as where the data is kept, or raise the limit");
		}
		return new String(json, StandardCharsets.UTF_8);
	}

}
