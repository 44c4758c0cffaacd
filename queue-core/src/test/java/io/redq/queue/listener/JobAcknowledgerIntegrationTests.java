package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobAcknowledger} against a real Redis.
 *
 * @author Redq team
 */
class JobAcknowledgerIntegrationTests extends AbstractQueueIntegrationTests {

	private JobAcknowledger acknowledger;

	@BeforeEach
	void setUp() {
		this.acknowledger = new JobAcknowledger(QUEUE, this.listener, ContainerProperties.DEFAULT_LEASE_TIME);
	}

	@AfterEach
	void tearDown() {
		this.acknowledger.stop();
	}

	@Test
	void completedJobsGatherWhileAnAcknowledgementIsInFlightAndGoInBatchesOfAThousand() throws Exception {
		List<ReservedJob> jobs = reserve(2500);
		CountDownLatch inFlight = new CountDownLatch(1);
		// the acknowledging thread is held until every job completed
		this.acknowledger.start((task) -> new Thread(() -> {
			awaitQuietly(inFlight);
			task.run();
		}));
		long scripts = ScriptExecutions.count(this.redis);
		jobs.forEach((job) -> this.acknowledger.add(job.lease(), null, false));
		inFlight.countDown();
		// awaited without scripts, so that only the acknowledgements count
		await().atMost(Duration.ofSeconds(10)).until(() -> reserved() == 0);
		assertThat(ScriptExecutions.count(this.redis) - scripts).as("acknowledgements of 2,500 jobs").isEqualTo(3);
		assertThat(stats()).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void afterAStopJobsAreAcknowledgedOnTheCallingThread() {
		List<ReservedJob> jobs = reserve(2);
		this.acknowledger.start(Thread::new);
		this.acknowledger.stop();
		this.acknowledger.add(jobs.get(0).lease(), null, false);
		assertThat(stats()).isEqualTo(new QueueStats(0, 0, 1, 0));
	}

	@Test
	void aFailedAcknowledgementIsSentAgainUntilRedisTakesIt() {
		List<ReservedJob> jobs = reserve(2);
		String model = this.template.opsForValue().get(this.keys.model());
		// the scripts refuse a queue of another data model before they change anything
		this.template.opsForValue().set(this.keys.model(), "99");
		long refused = refusedScripts();
		this.acknowledger.start(Thread::new);
		jobs.forEach((job) -> this.acknowledger.add(job.lease(), null, false));
		await().atMost(Duration.ofSeconds(10)).until(() -> refusedScripts() >= refused + 2);
		assertThat(reserved()).isEqualTo(2);
		this.template.opsForValue().set(this.keys.model(), model);
		await().atMost(Duration.ofSeconds(10)).until(() -> stats().equals(new QueueStats(0, 0, 0, 0)));
	}

	/**
	 * Return how many jobs are reserved (the set's member at +inf is none).
	 */
	private long reserved() {
		return this.template.opsForZSet().count(this.keys.reserved(), Double.NEGATIVE_INFINITY, Double.MAX_VALUE);
	}

	/**
	 * Return how many script calls Redis answered with Redq's own errors so far.
	 */
	private long refusedScripts() {
		Matcher count = Pattern.compile("errorstat_Redq:count=(\\d+)")
			.matcher(this.redis.command("INFO", "errorstats"));
		return count.find() ? Long.parseLong(count.group(1)) : 0;
	}

	private List<ReservedJob> reserve(int count) {
		List<EnqueueCommand> commands = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			commands.add(new EnqueueCommand("j" + i, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"test\",\"maxAttempts\":1,\"payload\":" + i + "}"));
		}
		this.enqueuer.enqueue(QUEUE, commands);
		List<ReservedJob> jobs = new ArrayList<>(count);
		while (jobs.size() < count) {
			jobs.addAll(this.listener.reserve(QUEUE, count - jobs.size(), Duration.ofMinutes(1)).jobs());
		}
		return jobs;
	}

	private QueueStats stats() {
		return this.operations.stats(QUEUE);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
