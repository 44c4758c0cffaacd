package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.ReservedJob;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobPrefetch}, without Redis.
 *
 * @author Redq team
 */
class JobPrefetchTests {

	private static final JobDefinition DEFINITION = new JobDefinition("job", "queue", 3, Duration.ZERO,
			JobBackoff.DEFAULT, null);

	private final JobPrefetch prefetch;

	JobPrefetchTests() {
		ContainerProperties properties = new ContainerProperties();
		properties.setConcurrency(4);
		properties.setPrefetch(32);
		this.prefetch = new JobPrefetch("queue", () -> true, properties);
	}

	@Test
	void reservesNothingAheadBeforeAJobFinished() {
		assertThat(this.prefetch.current(List.of())).isZero();
	}

	@Test
	void reservesWhatTheWorkersWouldStartWithinTheHorizonAtMostThePrefetchSetting() {
		this.prefetch.recordDuration(TimeUnit.MILLISECONDS.toNanos(50));
		// four workers start two jobs each within 100 ms
		assertThat(this.prefetch.current(List.of())).isEqualTo(8);
		for (int i = 0; i < 100; i++) {
			this.prefetch.recordDuration(TimeUnit.MICROSECONDS.toNanos(100));
		}
		assertThat(this.prefetch.current(List.of())).isEqualTo(32);
	}

	@Test // GH-36
	void aRunIsAsLongAsTheJobsThatRunWithinTheHorizonAtMostMaxRunNoneBeforeAJobFinished() {
		assertThat(this.prefetch.runSize(0)).isZero();
		this.prefetch.recordDuration(TimeUnit.MILLISECONDS.toNanos(30));
		// three 30 ms jobs within 100 ms: the job handed over and two that join it
		assertThat(this.prefetch.runSize(0)).isEqualTo(2);
		for (int i = 0; i < 200; i++) {
			this.prefetch.recordDuration(TimeUnit.MICROSECONDS.toNanos(10));
		}
		assertThat(this.prefetch.runSize(TimeUnit.MICROSECONDS.toNanos(10))).isEqualTo(JobPrefetch.MAX_RUN - 1);
		assertThat(this.prefetch.runSize(TimeUnit.MILLISECONDS.toNanos(50)))
			.as("a slow job among fast ones: two of it within 100 ms")
			.isOne();
		this.prefetch.recordDuration(TimeUnit.SECONDS.toNanos(10));
		assertThat(this.prefetch.runSize(0)).as("a job longer than the horizon runs alone").isZero();
	}

	@Test
	void theAverageMovesAnEighthOfTheWayToEachDuration() {
		this.prefetch.recordDuration(TimeUnit.MILLISECONDS.toNanos(80));
		this.prefetch.recordDuration(TimeUnit.MILLISECONDS.toNanos(160));
		// 80 + (160 - 80) / 8 = 90 ms: 4 × 100 / 90
		assertThat(this.prefetch.current(List.of())).isEqualTo(4);
	}

	@Test
	void aWorkerBusyPastTheHorizonStartsNoneSoon() {
		this.prefetch.recordDuration(TimeUnit.MILLISECONDS.toNanos(50));
		List<JobExecution> executions = new ArrayList<>();
		executions.add(waiting());
		executions.add(started());
		assertThat(this.prefetch.current(executions)).as("a job started just now or waiting counts as free").isIn(6, 8);
		// three free workers start two jobs each
		await().atMost(Duration.ofSeconds(5)).until(() -> this.prefetch.current(executions) == 6);
		executions.add(started());
		executions.add(started());
		executions.add(started());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.prefetch.current(executions) == 0);
	}

	private static JobExecution waiting() {
		return new JobExecution(new ReservedJob("id", "{}", 1, "1:1"), "queue", new Semaphore(0), null, null,
				() -> false, System.nanoTime(), null);
	}

	private static JobExecution started() {
		JobExecution execution = waiting();
		execution.resolve(new JobEnvelope(null, null, null, null, "job", null, null, null, null), new JobHandler() {

			@Override
			public JobDefinition getDefinition() {
				return DEFINITION;
			}

			@Override
			public @Nullable Object readPayload(@Nullable JsonNode payload) {
				return null;
			}

			@Override
			public @Nullable Object handle(@Nullable Object payload, JobContext context) {
				return null;
			}

		});
		execution.begin(null);
		return execution;
	}

}
