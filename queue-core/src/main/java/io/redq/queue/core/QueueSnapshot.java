package io.redq.queue.core;

import java.time.Duration;
import java.util.Map;

/**
 * A queue's counts, how long its oldest ready job has waited (the best single signal of
 * whether the queue keeps up), and whether it is paused, read at one instant.
 *
 * @param stats the counts
 * @param oldestReadyAge how long the oldest ready job has waited since it became ready;
 * zero when none is ready
 * @param paused whether the queue is paused
 * @param readyByPriority the ready jobs per priority level (see {@link JobPriority}),
 * highest level first, levels without ready jobs left out
 * @param readyGroups how many groups have ready jobs (see
 * {@link JobRequest.Builder#group(String)})
 * @author Redq team
 * @since 0.1.0
 */
public record QueueSnapshot(QueueStats stats, Duration oldestReadyAge, boolean paused,
		Map<Integer, Long> readyByPriority, long readyGroups) {

	/**
	 * Create an instance without counts per priority level.
	 * @param stats the counts
	 * @param oldestReadyAge how long the oldest ready job has waited
	 * @param paused whether the queue is paused
	 */
	public QueueSnapshot(QueueStats stats, Duration oldestReadyAge, boolean paused) {
		this(stats, oldestReadyAge, paused, Map.of(), 0);
	}

}
