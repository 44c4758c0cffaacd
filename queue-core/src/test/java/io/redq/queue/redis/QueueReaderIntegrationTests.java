package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.redis.QueueReader.Entry;
import io.redq.queue.redis.QueueReader.ScoredSet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link QueueReader} against a real Redis.
 *
 * @author Redq team
 */
class QueueReaderIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	/** An exclusive key that holds a NUL, as a line entry's gate may. */
	private static final Gates EXCLUSIVE = new Gates("order\u00001", "test", 0, 0, null);

	@Test // GH-36
	void countsAndPagesTheDelayedJobsByDueTimeThenTheParkedOnesInLineOrderWhereverDelayedStillHoldsThem() {
		enqueue("d1", Due.after(Duration.ofHours(2)));
		enqueue("d2", Due.after(Duration.ofHours(1)));
		for (String id : List.of("holder", "z", "y", "x")) {
			enqueue(id, Due.NOW);
		}
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 4, LEASE).jobs();
		GateOperations gates = this.listener.getGateOperations();
		assertThat(gates.admit(QUEUE, reserved.get(0).lease(), EXCLUSIVE, LEASE)).isZero();
		for (ReservedJob job : reserved.subList(1, 4)) {
			assertThat(gates.admit(QUEUE, job.lease(), EXCLUSIVE, LEASE)).isEqualTo(GateOperations.PARKED);
		}
		Entry d2 = due("d2");
		assertThat(d2.at()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
		List<Entry> all = List.of(d2, due("d1"), new Entry("z", null), new Entry("y", null), new Entry("x", null));
		// data model 7 keeps the parked jobs in lines alone...
		assertThat(this.template.opsForZSet().zCard(this.keys.delayed())).isEqualTo(2);
		assertListsAll(all);
		// ...while a queue is upgraded delayed may still hold some at +inf...
		this.template.opsForZSet().add(this.keys.delayed(), "y", Double.POSITIVE_INFINITY);
		assertListsAll(all);
		// ...and data model 6 kept them all there
		for (String id : List.of("z", "x")) {
			this.template.opsForZSet().add(this.keys.delayed(), id, Double.POSITIVE_INFINITY);
		}
		assertListsAll(all);
	}

	private void assertListsAll(List<Entry> all) {
		QueueReader reader = new QueueReader(this.operations.getStore());
		assertThat(reader.count(QUEUE, ScoredSet.DELAYED)).isEqualTo(all.size());
		assertThat(reader.entries(QUEUE, ScoredSet.DELAYED, 0, 9)).containsExactlyElementsOf(all);
		assertThat(reader.entries(QUEUE, ScoredSet.DELAYED, 0, 1)).containsExactlyElementsOf(all.subList(0, 2));
		assertThat(reader.entries(QUEUE, ScoredSet.DELAYED, 1, 3)).containsExactlyElementsOf(all.subList(1, 4));
		assertThat(reader.entries(QUEUE, ScoredSet.DELAYED, 3, 4)).containsExactlyElementsOf(all.subList(3, 5));
	}

	private Entry due(String id) {
		Double score = this.template.opsForZSet().score(this.keys.delayed(), id);
		assertThat(score).isNotNull();
		return new Entry(id, Instant.ofEpochMilli(score.longValue()));
	}

	private void enqueue(String id, Due due) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, due, DuplicatePolicy.KEEP,
				"\"job\":\"test\",\"maxAttempts\":3,\"payload\":\"x\"}")));
	}

}
