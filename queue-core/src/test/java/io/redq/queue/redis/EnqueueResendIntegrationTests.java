package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.Uniqueness;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests that an enqueue Lettuce re-sends after a lost reply (the same script call, under
 * the same nonce) changes nothing, whatever happened to its jobs meanwhile, against a
 * real Redis.
 *
 * @author Redq team
 */
class EnqueueResendIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration WINDOW = Duration.ofMinutes(2);

	private static final Duration LEASE = Duration.ofSeconds(30);

	@Test
	void aDispatchReSentAfterItsJobsRanAndWereAckedStoresNothingRunsNothingAndGetsTheSameReply() {
		String generated = JobIds.next();
		String later = JobIds.next();
		List<EnqueueCommand> batch = List.of(EnqueueCommand.withGeneratedId(generated, Due.NOW, body(1)),
				new EnqueueCommand("chosen", Due.NOW, DuplicatePolicy.KEEP, body(2)),
				EnqueueCommand.withGeneratedId(later, Due.after(Duration.ofMinutes(1)), body(3)));
		String nonce = EnqueueOperations.nonce();
		List<DispatchResult> first = this.enqueuer.enqueue(QUEUE, nonce, batch, WINDOW);
		assertThat(first).extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactly(tuple(generated, Outcome.CREATED), tuple("chosen", Outcome.CREATED),
					tuple(later, Outcome.CREATED));
		List<ReservedJob> ran = this.listener.reserve(QUEUE, 10, LEASE).jobs();
		assertThat(ran).extracting(ReservedJob::id).containsExactly(generated, "chosen");
		assertThat(this.listener.ack(QUEUE, ran.stream().map(ReservedJob::lease).toList())).isEmpty();
		// the reply was lost: Lettuce re-sends the same call when it reconnects
		assertThat(this.enqueuer.enqueue(QUEUE, nonce, batch, WINDOW)).isEqualTo(first);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 1, 0, 0));
		assertThat(this.template.opsForHash().keys(this.keys.jobs())).containsExactly(later);
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).isEmpty();
	}

	@Test
	void aDispatchReSentWhileItsJobRunsQueuesNoSuccessor() {
		EnqueueCommand command = new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED,
				body(1));
		String nonce = EnqueueOperations.nonce();
		List<DispatchResult> first = this.enqueuer.enqueue(QUEUE, nonce, List.of(command), WINDOW);
		ReservedJob running = this.listener.reserve(QUEUE, 1, LEASE).jobs().get(0);
		assertThat(this.enqueuer.enqueue(QUEUE, nonce, List.of(command), WINDOW)).isEqualTo(first)
			.extracting(DispatchResult::outcome)
			.containsExactly(Outcome.CREATED);
		assertThat(this.template.hasKey(this.keys.successors())).isFalse();
		assertThat(this.listener.ack(QUEUE, List.of(running.lease()))).isEmpty();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void aDispatchIsRememberedForTheWindowOnlyAndAnotherNonceIsAnotherDispatch() {
		EnqueueCommand command = new EnqueueCommand("a", Due.NOW, DuplicatePolicy.KEEP, body(1));
		String nonce = EnqueueOperations.nonce();
		this.enqueuer.enqueue(QUEUE, nonce, List.of(command), WINDOW);
		assertThat(this.template.getExpire(this.keys.sent(nonce))).isBetween(WINDOW.toSeconds() - 5,
				WINDOW.toSeconds());
		assertThat(this.enqueuer.enqueue(QUEUE, EnqueueOperations.nonce(), List.of(command), WINDOW))
			.extracting(DispatchResult::outcome)
			.containsExactly(Outcome.KEPT);
	}

	@Test
	void noncesAreRandomAndUrlSafe() {
		assertThat(EnqueueOperations.nonce()).hasSize(22)
			.matches("[A-Za-z0-9_-]+")
			.isNotEqualTo(EnqueueOperations.nonce());
	}

	private static String body(int payload) {
		return "\"job\":\"test\",\"maxAttempts\":1,\"timeout\":0,\"payload\":" + payload + "}";
	}

}
