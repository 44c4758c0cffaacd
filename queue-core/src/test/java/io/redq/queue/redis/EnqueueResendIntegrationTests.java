package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.script.QueueScripts;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests that a call Lettuce re-sends after a lost reply (the same script call, on the
 * same lane with the same sequence number: see {@link ResendProtection}) changes nothing,
 * whatever happened to its jobs meanwhile, against a real Redis: dispatches, and the
 * operations' cancel, reschedule and retry of dead jobs.
 *
 * @author Redq team
 */
class EnqueueResendIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@Test
	void aDispatchReSentAfterItsJobsRanAndWereAckedStoresNothingRunsNothingAndGetsTheSameReply() {
		String generated = JobIds.next();
		String later = JobIds.next();
		List<EnqueueCommand> batch = List.of(EnqueueCommand.withGeneratedId(generated, Due.NOW, body(1)),
				new EnqueueCommand("chosen", Due.NOW, DuplicatePolicy.KEEP, body(2)),
				EnqueueCommand.withGeneratedId(later, Due.after(Duration.ofMinutes(1)), body(3)));
		ResendProtection.Call call = begin();
		List<DispatchResult> first = this.enqueuer.enqueue(QUEUE, call, batch);
		assertThat(first).extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactly(tuple(generated, Outcome.CREATED), tuple("chosen", Outcome.CREATED),
					tuple(later, Outcome.CREATED));
		List<ReservedJob> ran = this.listener.reserve(QUEUE, 10, LEASE).jobs();
		assertThat(ran).extracting(ReservedJob::id).containsExactly(generated, "chosen");
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, ran.stream().map(ReservedJob::lease).toList()))
			.isEmpty();
		// the reply was lost: Lettuce re-sends the same call when it reconnects
		assertThat(this.enqueuer.enqueue(QUEUE, call, batch)).isEqualTo(first);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactly(later);
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).isEmpty();
	}

	@Test
	void aPushedBatchReSentAfterItsJobsRanAndWereAckedPushesNothingAndGetsTheSameReply() {
		// jobs ready at once under generated ids: push.lua takes them, alone or in a
		// batch
		for (int size : new int[] { 1, 3 }) {
			List<EnqueueCommand> batch = new ArrayList<>();
			for (int i = 0; i < size; i++) {
				batch.add(EnqueueCommand.withGeneratedId(JobIds.next(), Due.NOW, body(i)));
			}
			ResendProtection.Call call = begin();
			this.redis.command("SCRIPT", "FLUSH");
			List<DispatchResult> first = this.enqueuer.enqueue(QUEUE, call, batch);
			assertThat(first).extracting(DispatchResult::outcome).containsOnly(Outcome.CREATED).hasSize(size);
			assertThat(
					this.template.execute((RedisCallback<List<Boolean>>) (connection) -> connection.scriptingCommands()
						.scriptExists(this.operations.getStore().getScripts().push().getSha1())))
				.containsExactly(true);
			List<ReservedJob> ran = this.listener.reserve(QUEUE, 10, LEASE).jobs();
			assertThat(ran).extracting(ReservedJob::id)
				.containsExactlyElementsOf(batch.stream().map(EnqueueCommand::id).toList());
			assertThat(this.listener.getLeaseOperations().ack(QUEUE, ran.stream().map(ReservedJob::lease).toList()))
				.isEmpty();
			assertThat(this.enqueuer.enqueue(QUEUE, call, batch)).isEqualTo(first);
			assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
			assertThat(this.template.hasKey(this.keys.jobs())).isFalse();
		}
	}

	@Test
	void aDispatchReSentWhileItsJobRunsQueuesNoSuccessor() {
		EnqueueCommand command = new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED,
				body(1));
		ResendProtection.Call call = begin();
		List<DispatchResult> first = this.enqueuer.enqueue(QUEUE, call, List.of(command));
		ReservedJob running = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(this.enqueuer.enqueue(QUEUE, call, List.of(command))).isEqualTo(first)
			.extracting(DispatchResult::outcome)
			.containsExactly(Outcome.CREATED);
		assertThat(this.template.hasKey(this.keys.successors())).isFalse();
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(running.lease()))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void aCallIsRememberedForTheWindowOnlyAndTheNextCallOnItsLaneIsAnotherCall() {
		EnqueueCommand command = new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP, body(1));
		ResendProtection resends = this.operations.getStore().getResendProtection();
		ResendProtection.Call call = begin();
		this.enqueuer.enqueue(QUEUE, call, List.of(command));
		assertThat(this.template.getExpire(call.key(), TimeUnit.MILLISECONDS))
			.isBetween(resends.getWindow().toMillis() - 5000, resends.getWindow().toMillis());
		resends.end(call);
		ResendProtection.Call next = begin();
		assertThat(next.key()).as("the same lane").isEqualTo(call.key());
		assertThat(this.enqueuer.enqueue(QUEUE, next, List.of(command))).extracting(DispatchResult::outcome)
			.containsExactly(Outcome.KEPT);
	}

	@Test
	void aCallUnderItsOwnIdWithAWindowBelowOneMillisecondIsRefusedBeforeAnythingIsSent() {
		List<EnqueueCommand> batch = List.of(new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP, body(1)));
		for (Duration window : List.of(Duration.ZERO, Duration.ofNanos(999_999), Duration.ofMillis(-1))) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.enqueuer.enqueueOnce(QUEUE, ResendProtection.newId(), batch, window))
				.withMessageContaining("re-send window must be at least 1 ms")
				.withMessageContaining(window.toString());
		}
		assertThat(this.template.hasKey(this.keys.jobs())).as("no job written").isFalse();
		assertThat(this.enqueuer.enqueueOnce(QUEUE, ResendProtection.newId(), batch, Duration.ofMillis(1)))
			.extracting(DispatchResult::outcome)
			.containsExactly(Outcome.CREATED);
	}

	@Test
	void callsInFlightAtOnceTakeLanesOfTheirOwnAndEachProducerHasItsOwn() {
		ResendProtection resends = this.operations.getStore().getResendProtection();
		ResendProtection.Call first = resends.begin(this.keys);
		ResendProtection.Call second = resends.begin(this.keys);
		assertThat(second.lane()).isNotEqualTo(first.lane());
		assertThat(second.sequence()).isGreaterThan(first.sequence());
		ResendProtection.Call other = new ResendProtection().begin(this.keys);
		assertThat(Set.of(first.key(), second.key(), other.key())).hasSize(3);
		assertThat(other.key()).matches("redq:\\{test\\}:sent:[A-Za-z0-9_-]{22}:\\d+");
	}

	@Test
	void aCancelReSentAfterTheIdWasDispatchedAgainCancelsNothing() {
		enqueue("timer", Due.after(Duration.ofMinutes(1)));
		ResendProtection.Call call = begin();
		assertThat(cancel(call, "timer")).isEqualTo(1);
		// another thread sets the timer again before Lettuce re-sends the cancel
		enqueue("timer", Due.after(Duration.ofMinutes(5)));
		assertThat(cancel(call, "timer")).isEqualTo(1);
		assertThat(this.operations.status(QUEUE, "timer").state()).isEqualTo(JobStatus.State.DELAYED);
	}

	@Test
	void aRescheduleReSentAfterTheIdWasDispatchedAgainMovesNothing() {
		enqueue("timer", Due.after(Duration.ofMinutes(1)));
		ResendProtection.Call call = begin();
		List<String> soon = List.of("timer", "d", "5000");
		assertThat(runOnce(this.operations.getStore().getScripts().reschedule(), call, soon)).isEqualTo(1);
		this.operations.cancel(QUEUE, "timer");
		enqueue("timer", Due.after(Duration.ofHours(1)));
		assertThat(runOnce(this.operations.getStore().getScripts().reschedule(), call, soon)).isEqualTo(1);
		JobStatus status = this.operations.status(QUEUE, "timer");
		assertThat(Duration.between(status.redisTime(), status.at())).as("the new timer keeps its hour")
			.isGreaterThan(Duration.ofMinutes(59));
	}

	@Test
	void aRetryOfDeadJobsReSentAfterTheJobDiedAgainRevivesNothing() {
		enqueue("a", Due.NOW);
		this.listener.getLeaseOperations()
			.fail(QUEUE, this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0).lease(), "boom", null);
		ResendProtection.Call call = begin();
		QueueScripts scripts = this.operations.getStore().getScripts();
		assertThat(runOnce(scripts.revive(), call, List.of("retry", "0", "a"))).isEqualTo(1);
		this.listener.getLeaseOperations()
			.fail(QUEUE, this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0).lease(), "boom again", null);
		assertThat(runOnce(scripts.revive(), call, List.of("retry", "0", "a"))).isEqualTo(1);
		assertThat(this.operations.stats(QUEUE)).as("dead again, and left dead").isEqualTo(new QueueStats(0, 0, 0, 1));
	}

	@Test
	void theMemoryOfReSentCallsIsBoundedByTheCallsInFlightNotByTheirNumber() throws Exception {
		int threads = 4;
		int dispatches = 50_000;
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t;
			producers.add(new Thread(() -> {
				for (int i = first; i < dispatches; i += threads) {
					this.enqueuer.enqueue(QUEUE,
							List.of(EnqueueCommand.withGeneratedId("j" + i, Due.after(Duration.ofHours(1)), body(i))));
				}
			}));
		}
		producers.forEach(Thread::start);
		for (Thread producer : producers) {
			producer.join();
		}
		assertThat(this.operations.stats(QUEUE).delayed()).isEqualTo(dispatches);
		List<String> sent = List.copyOf(this.template.keys("redq:{" + QUEUE + "}:sent:*"));
		assertThat(sent).as("one key per call in flight at once").isNotEmpty().hasSizeLessThanOrEqualTo(threads);
		long bytes = 0;
		for (String key : sent) {
			bytes += Long.parseLong(this.redis.command("MEMORY", "USAGE", key));
		}
		assertThat(bytes).isLessThan(200L * threads);
	}

	private ResendProtection.Call begin() {
		return this.operations.getStore().getResendProtection().begin(this.keys);
	}

	private long cancel(ResendProtection.Call call, String id) {
		Long result = this.operations.getStore()
			.runOnce(this.operations.getStore().getScripts().cancel(), QUEUE, call, List.of(this.keys.progress(id)),
					List.of(id));
		assertThat(result).isNotNull();
		return result;
	}

	private long runOnce(RedisScript<Long> script, ResendProtection.Call call, List<String> args) {
		Long result = this.operations.getStore().runOnce(script, QUEUE, call, args);
		assertThat(result).isNotNull();
		return result;
	}

	private void enqueue(String id, Due due) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, due, DuplicatePolicy.KEEP, body(1))));
	}

	private static String body(int payload) {
		return "\"job\":\"test\",\"maxAttempts\":1,\"timeout\":0,\"payload\":" + payload + "}";
	}

}
