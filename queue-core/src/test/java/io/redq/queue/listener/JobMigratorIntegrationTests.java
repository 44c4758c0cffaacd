package io.redq.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.Reservation;
import io.redq.queue.redis.ReservedJob;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobMigrator} against a real Redis.
 *
 * @author Redq team
 */
class JobMigratorIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

	private JobMigrator migrator;

	@BeforeEach
	void setUp() {
		ContainerProperties properties = new ContainerProperties();
		properties.setPollTimeout(Duration.ofSeconds(5));
		this.migrator = new JobMigrator(QUEUE, () -> true, this.listener, properties);
	}

	@AfterEach
	void tearDown() {
		this.scheduler.shutdownNow();
	}

	@Test
	void aBatchMembersCompletionReachesItsBatchAndItsCallbackThroughTheMigrator() {
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("member", QUEUE, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		catalog.register(new JobDefinition("done", "callbacks", 1, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		BatchResult batch = dispatcher.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("member", "m").build()))
			.onComplete(JobRequest.of("done", "d").build())
			.build());
		Reservation reservation = this.listener.reserve(QUEUE, 1, Duration.ofSeconds(30));
		this.listener.getLeaseOperations().ack(QUEUE, List.of(reservation.jobs().get(0).lease()));
		this.migrator.start(this.scheduler);
		await().atMost(DEADLINE).until(() -> this.operations.stats("callbacks").ready() == 1);
		assertThat(dispatcher.findBatch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(this.template.hasKey(this.keys.handover())).as("applied, then removed").isFalse();
		dispatcher.stop();
	}

	@Test // GH-37
	void aHandOverIsDueAtOnceWhileAnotherJobRunsUnderALongLease() {
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("member", QUEUE, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		dispatcher.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("member", "m").build())).build());
		enqueue("long", Due.NOW);
		Reservation both = this.listener.reserve(QUEUE, 2, Duration.ofMinutes(1));
		assertThat(both.jobs()).hasSize(2);
		this.listener.getLeaseOperations()
			.ack(QUEUE,
					both.jobs().stream().filter((job) -> !job.id().equals("long")).map(ReservedJob::lease).toList());
		// the next reservation finds nothing and tells the migrator when to run: for the
		// member's hand-over, not when the other job's lease ends
		Reservation next = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1));
		assertThat(next.jobs()).isEmpty();
		assertThat(next.nextDue()).isLessThanOrEqualTo(next.redisTime());
		dispatcher.stop();
	}

	@Test
	void aDelayedJobIsMadeReadyWhenItIsDueNeverBefore() {
		enqueue("later", Due.after(Duration.ofMillis(300)));
		long due = this.operations.status(QUEUE, "later").at().toEpochMilli();
		this.migrator.start(this.scheduler);
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).ready() == 1);
		JobStatus status = this.operations.status(QUEUE, "later");
		assertThat(status.state()).isEqualTo(JobStatus.State.READY);
		assertThat(status.redisTime().toEpochMilli()).isGreaterThanOrEqualTo(due);
	}

	@Test
	void aReservationWakesTheIdleMigratorForAnExpiredLease() {
		this.migrator.start(this.scheduler);
		// the first run found nothing to wait for: the migrator sleeps
		await().atMost(DEADLINE).until(() -> this.scheduler.getQueue().isEmpty());
		enqueue("stalled", Due.NOW);
		Reservation reservation = this.listener.reserve(QUEUE, 1, Duration.ofMillis(200));
		assertThat(reservation.jobs()).hasSize(1);
		this.migrator.wakeUpAt(reservation.redisTime(), reservation.nextDue());
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(1, 0, 0, 0)));
	}

	@Test
	void aStoppedContainersMigratorSchedulesNothing() {
		JobMigrator stopped = new JobMigrator(QUEUE, () -> false, this.listener, new ContainerProperties());
		stopped.start(this.scheduler);
		stopped.wakeUpAt(0, 0);
		assertThat(this.scheduler.getQueue()).isEmpty();
		assertThat(this.scheduler.getCompletedTaskCount()).isZero();
	}

	private void enqueue(String id, Due due) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, due, DuplicatePolicy.KEEP,
				"\"job\":\"test\",\"maxAttempts\":3,\"payload\":1}")));
	}

}
