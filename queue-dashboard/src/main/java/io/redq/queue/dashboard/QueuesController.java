package io.redq.queue.dashboard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.core.QueueStats;
import io.redq.queue.inspect.InspectedQueue;
import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.QueueStatistics;
import io.redq.queue.inspect.ShardView;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's view of the queues: the list with each queue's counts and last hour,
 * one queue with its statistics and, on request, its shards, and the changes of a whole
 * queue (pause, resume, purge).
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/queues")
public class QueuesController {

	private final JobQueueInspector inspector;

	private final JobQueueOperations operations;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads and changes the queues through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public QueuesController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.operations = inspector.getOperations();
		this.guard = guard;
	}

	@GetMapping("")
	List<QueueJson> queues() {
		return this.inspector.read(() -> {
			Map<String, Integer> consumers = consumers();
			return this.inspector.queues()
				.stream()
				.map((queue) -> QueueJson.of(queue, consumers.getOrDefault(queue.name(), 0),
						LastHourJson.of(this.inspector.minutes(queue.name()))))
				.toList();
		});
	}

	@GetMapping("/{queue}")
	QueueJson queue(@PathVariable String queue) {
		return this.inspector
			.read(() -> describe(this.guard.requireQueue(queue), this.inspector.recentSnapshot(queue)));
	}

	@GetMapping("/{queue}/statistics")
	StatisticsJson statistics(@PathVariable String queue) {
		QueueStatistics statistics = this.inspector
			.read(() -> this.inspector.statistics(this.guard.requireQueue(queue)));
		return new StatisticsJson(statistics.minutes().stream().map(BucketJson::of).toList(),
				statistics.hours().stream().map(BucketJson::of).toList());
	}

	@GetMapping("/{queue}/shards")
	List<ShardJson> shards(@PathVariable String queue) {
		return this.inspector.read(() -> this.inspector.shards(this.guard.requireQueue(queue)))
			.stream()
			.map(ShardJson::of)
			.toList();
	}

	@PostMapping("/{queue}/{action:pause|resume}")
	QueueJson pauseOrResume(@PathVariable String queue, @PathVariable String action, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		if (action.equals("pause")) {
			this.operations.pause(this.guard.requireQueue(queue));
		}
		else {
			this.operations.resume(this.guard.requireQueue(queue));
		}
		this.guard.log(request, action, queue, "", 0);
		return describe(queue);
	}

	@PostMapping("/{queue}/purge")
	QueueJson purge(@PathVariable String queue, @RequestParam(required = false) @Nullable String confirm,
			HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		this.guard.requireQueue(queue);
		DashboardGuard.requireConfirmation(queue, confirm, "purge");
		this.operations.purge(queue);
		this.guard.log(request, "purge", queue, "", 0);
		return describe(queue);
	}

	private QueueJson describe(String queue) {
		return describe(queue, this.inspector.snapshot(queue));
	}

	private QueueJson describe(String queue, QueueSnapshot snapshot) {
		return QueueJson.of(new InspectedQueue(queue, this.inspector.handledQueues().contains(queue),
				this.inspector.knownQueues().contains(queue) && !this.inspector.handledQueues().contains(queue),
				snapshot), consumers().getOrDefault(queue, 0), null);
	}

	// per queue, the live instances whose listener container of it runs, from the
	// registry the instances write their heartbeats to (read at most once a second)
	private Map<String, Integer> consumers() {
		Map<String, Integer> consumers = new HashMap<>();
		for (InstanceView instance : this.inspector.instances()) {
			for (InstanceView.ConsumedQueue queue : instance.queues()) {
				if (queue.running()) {
					consumers.merge(queue.queue(), 1, Integer::sum);
				}
			}
		}
		return consumers;
	}

	/**
	 * A queue as the page shows it: its counts, how many live instances consume it (run a
	 * listener container on it), and in the list of queues its last hour.
	 */
	record QueueJson(String name, boolean handled, boolean dispatched, boolean discovered, long ready, long delayed,
			long reserved, long dead, long oldestReadyAgeMillis, boolean paused, int consumers,
			@Nullable LastHourJson lastHour) {

		static QueueJson of(InspectedQueue queue, int consumers, @Nullable LastHourJson lastHour) {
			QueueSnapshot snapshot = queue.snapshot();
			return new QueueJson(queue.name(), queue.handled(), queue.dispatched(), queue.discovered(),
					snapshot.stats().ready(), snapshot.stats().delayed(), snapshot.stats().reserved(),
					snapshot.stats().dead(), snapshot.oldestReadyAge().toMillis(), snapshot.paused(), consumers,
					lastHour);
		}

	}

	/**
	 * A shard of a queue as the page shows it on request: where it lives (its hash tag,
	 * and on a Redis Cluster its slot and master) and its counts, read afresh.
	 */
	record ShardJson(String hashTag, @Nullable Integer slot, @Nullable String master, long ready, long delayed,
			long reserved, long dead) {

		static ShardJson of(ShardView shard) {
			QueueStats stats = shard.snapshot().stats();
			return new ShardJson(shard.hashTag(), shard.slot(), shard.master(), stats.ready(), stats.delayed(),
					stats.reserved(), stats.dead());
		}

	}

	/**
	 * A queue's counts per minute over the last hour, oldest first, as every instance
	 * counted them in Redis: the list of queues draws them.
	 *
	 * @param from the start of the first minute, in epoch milliseconds
	 */
	record LastHourJson(long from, long[] completed, long[] failed, long[] dead) {

		static LastHourJson of(List<QueueStatistics.Bucket> minutes) {
			return new LastHourJson(minutes.get(0).start().toEpochMilli(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::completed).toArray(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::failed).toArray(),
					minutes.stream().mapToLong(QueueStatistics.Bucket::dead).toArray());
		}

	}

	/**
	 * A queue's statistics: per minute over the last hour, per hour over the retention.
	 */
	record StatisticsJson(List<BucketJson> minutes, List<BucketJson> hours) {
	}

	/**
	 * The counts of one minute or hour, from its start in epoch milliseconds.
	 */
	record BucketJson(long at, long completed, long failed, long dead) {

		static BucketJson of(QueueStatistics.Bucket bucket) {
			return new BucketJson(bucket.start().toEpochMilli(), bucket.completed(), bucket.failed(), bucket.dead());
		}

	}

}
