package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.Timer;
import io.redq.queue.test.ScriptExecutions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of timers set in batches, and of what a timer reports after a reschedule into the
 * past, on a real Redis.
 *
 * @author Redq team
 */
class TimerBatchIntegrationTests extends AbstractQueueIntegrationTests {

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		JobDefinition closeAuction = new JobDefinition("close-auction", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT,
				Long.class);
		this.dispatcher = new RedisJobDispatcher(this.operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return name.equals("close-auction") ? closeAuction : null;
			}

			@Override
			public Collection<JobDefinition> all() {
				return List.of(closeAuction);
			}

		}, this.jsonMapper);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void manyTimersAreSetInOneScriptCallPerThousand() {
		Instant at = Instant.ofEpochMilli(System.currentTimeMillis()).plus(Duration.ofHours(1));
		Map<Long, Instant> timers = new LinkedHashMap<>();
		for (long key = 0; key < 2500; key++) {
			timers.put(key, at.plusMillis(key));
		}
		long before = ScriptExecutions.count(this.redis);
		List<DispatchResult> results = this.dispatcher.scheduleAll("close-auction", timers);
		assertThat(ScriptExecutions.count(this.redis) - before).isEqualTo(3);
		assertThat(results).hasSize(2500).allMatch((result) -> result.outcome() == Outcome.CREATED);
		assertThat(results.get(0).id()).isEqualTo("close-auction:0");
		assertThat(results.get(2499).id()).isEqualTo("close-auction:2499");
		assertThat(this.operations.stats(QUEUE).delayed()).isEqualTo(2500);
		assertThat(this.dispatcher.findTimer("close-auction", 2499L)).map(Timer::dueAt).contains(at.plusMillis(2499));
	}

	@Test
	void aBatchMovesPendingTimersOfTheSameKeys() {
		Instant first = Instant.ofEpochMilli(System.currentTimeMillis()).plus(Duration.ofHours(1));
		this.dispatcher.schedule("close-auction", 1L, first);
		Instant later = first.plus(Duration.ofHours(1));
		Map<Long, Instant> timers = new LinkedHashMap<>();
		timers.put(1L, later);
		timers.put(2L, later);
		assertThat(this.dispatcher.scheduleAll("close-auction", timers)).extracting(DispatchResult::outcome)
			.containsExactly(Outcome.REPLACED, Outcome.CREATED);
		assertThat(this.operations.stats(QUEUE).delayed()).isEqualTo(2);
		assertThat(this.dispatcher.findTimer("close-auction", 1L)).map(Timer::dueAt).contains(later);
	}

	@Test
	void aTimerRescheduledIntoThePastIsDueAtOnceFromTheTimeOfTheReschedule() {
		this.dispatcher.schedule("close-auction", 7L, Instant.now().plus(Duration.ofHours(1)));
		Instant past = Instant.now().minus(Duration.ofDays(1));
		Instant redisBefore = this.operations.status(QUEUE, "close-auction:7").redisTime();
		assertThat(this.dispatcher.reschedule("close-auction", 7L, past)).isTrue();
		JobStatus status = this.operations.status(QUEUE, "close-auction:7");
		assertThat(status.state()).isEqualTo(JobStatus.State.READY);
		// the job's due time is the reschedule's, not the past instant
		long availableAt = this.jsonMapper
			.readTree((String) this.template.opsForHash().get(this.keys.jobs(), "close-auction:7"))
			.get("availableAt")
			.asLong();
		assertThat(Instant.ofEpochMilli(availableAt)).isBetween(redisBefore, status.redisTime());
		// a due timer reports the Redis time of the call, with nothing remaining
		Timer timer = this.dispatcher.findTimer("close-auction", 7L).orElseThrow();
		assertThat(timer.dueAt()).isAfterOrEqualTo(status.redisTime());
		assertThat(timer.remaining()).isZero();
	}

}
