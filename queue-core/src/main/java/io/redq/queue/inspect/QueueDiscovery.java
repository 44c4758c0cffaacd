package io.redq.queue.inspect;

import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.QueueReader;
import io.redq.queue.redis.QueueScan;
import org.jspecify.annotations.Nullable;

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

	private final JobDefinitions jobs;

	private final QueueReader reader;

	private final QueueScan scan;

	private Duration interval = Duration.ofSeconds(30);

	private @Nullable InstanceRegistry instances;

	private volatile long roundAt;

	private volatile boolean roundOnce;

	/** The queues of the latest whole pass, and of the pass under way. */
	private volatile Set<String> passed = Set.of();

	private final Set<String> passing = new TreeSet<>();

	QueueDiscovery(JobDefinitions jobs, QueueReader reader) {
		this.jobs = jobs;
		this.reader = reader;
		this.scan = reader.queueScan();
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
		return this.reader.hasModel(queue);
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
		try {
			if (this.scan.round(SCAN_CALLS_PER_ROUND, SCAN_COUNT, this::add)) {
				this.passed = Collections.unmodifiableSet(new TreeSet<>(this.passing));
				this.passing.clear();
			}
		}
		catch (RuntimeException ex) {
			// the next round starts a pass again
			this.passing.clear();
			throw ex;
		}
	}

	private void add(String queue) {
		if (this.passing.size() < JobQueueInspector.MAX_DISCOVERED_QUEUES) {
			this.passing.add(queue);
		}
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
