package io.redq.queue.redis;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.lettuce.core.cluster.SlotHash;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.JobRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of reading the results of batch members and chain steps on a three-node Redis
 * Cluster started by the test on 127.0.0.1: the members and steps live in queues of other
 * slots than their batch or chain, and each page reads them in their own slots.
 *
 * @author Redq team
 */
class WorkflowResultsOnRedisClusterIntegrationTests extends AbstractWorkflowOnRedisClusterIntegrationTests {

	private static final List<String> QUEUES = List.of("q0", "q1", "q2");

	WorkflowResultsOnRedisClusterIntegrationTests() {
		super("results", job("first", "q0"), job("second", "q1"), job("third", "q2"));
	}

	@BeforeEach
	void queuesInSlotsOfTheirOwn() {
		assertThat(QUEUES.stream().map(SlotHash::getSlot).distinct()).hasSize(3);
	}

	@Test
	void aBatchPagesThroughItsMembersResultsInTheirSlotsInTheOrderTheySucceeded() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("first", "a").build(),
				JobRequest.of("second", "b").build(), JobRequest.of("third", "c").build(),
				JobRequest.of("first", "d").build(), JobRequest.of("second", "e").build()))
			.build());
		assertThat(SlotHash.getSlot(batch.batchId())).isNotIn(QUEUES.stream().map(SlotHash::getSlot).toList());
		// in the order q2, q1, q0: c, b and e (nothing returned for e), then a and d
		// (dead)
		String c = succeed("q2", "\"C\"");
		this.listener.handOver("q2");
		// handed over one by one: the hand-overs of one pass go in the order of their
		// scores, which two completions in the same millisecond share
		String handover = this.operations.getStore().keys("q1").handover();
		String b = succeed("q1", "\"B\"");
		Set<String> handOvers = new HashSet<>(this.template.opsForZSet().range(handover, 0, -1));
		this.listener.handOver("q1");
		String e = succeed("q1", null);
		handOvers.addAll(this.template.opsForZSet().range(handover, 0, -1));
		this.listener.handOver("q1");
		// a second mover applies the same hand-overs again
		handOvers.forEach((entry) -> this.template.opsForZSet().add(handover, entry, 0));
		this.listener.handOver("q1");
		String a = succeed("q0", "\"A\"");
		ReservedJob d = this.listener.reserve("q0", 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail("q0", d.lease(), "boom", null)).isTrue();
		this.listener.handOver("q0");
		assertThat(this.listener.findBatch(batch.batchId()).orElseThrow().dead()).isEqualTo(1);
		BatchKeys keys = this.operations.getStore().batchKeys(batch.batchId());
		assertThat(this.template.getExpire(keys.succeeded())).as("lingers with the ended batch").isPositive();
		assertThat(this.listener.batchResults(batch.batchId(), String.class, 0, 1000))
			.containsExactly(result("q2", c, "C"), result("q1", b, "B"), result("q1", e, null), result("q0", a, "A"));
		assertThat(this.listener.batchResults(batch.batchId(), String.class, 1, 2))
			.containsExactly(result("q1", b, "B"), result("q1", e, null));
		assertThat(this.listener.batchResults(batch.batchId(), String.class, 4, 2)).isEmpty();
		// a result that expired reads as empty
		this.template.delete(this.operations.getStore().keys("q2").result(c));
		assertThat(this.listener.batchResults(batch.batchId(), String.class, 0, 1))
			.containsExactly(result("q2", c, null));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.listener.batchResults(batch.batchId(), Integer.class, 1, 1))
			.withMessageContaining("Result of job " + b + " of queue 'q1' cannot be read as java.lang.Integer");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.listener.batchResults(batch.batchId(), String.class, 0, 1001))
			.withMessage("count must be between 0 and 1000; got 1001");
	}

	@Test
	void theMembersThatSucceedAfterAFailFastBatchEndedLingerWithIt() {
		BatchResult batch = this.dispatcher.dispatchBatch(
				BatchRequest.of(List.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build()))
					.failFast()
					.build());
		ReservedJob a = this.listener.reserve("q0", 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail("q0", a.lease(), "boom", null)).isTrue();
		this.listener.handOver("q0");
		String b = succeed("q1", "\"B\"");
		this.listener.handOver("q1");
		assertThat(this.listener.batchResults(batch.batchId(), String.class, 0, 10))
			.containsExactly(result("q1", b, "B"));
		BatchKeys keys = this.operations.getStore().batchKeys(batch.batchId());
		assertThat(this.template.getExpire(keys.succeeded())).as("begun after the end, it lingers too").isPositive();
	}

	@Test
	void aChainStepReadsTheResultOfTheStepBeforeItInAnotherSlot() {
		String chainId = this.dispatcher
			.dispatchChain(
					ChainRequest
						.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build(),
								JobRequest.of("third", "c").build())
						.build())
			.chainId();
		assertThat(succeed("q0", "{\"price\":12}")).isEqualTo(chainId + ":1");
		this.listener.handOver("q0");
		assertThat(succeed("q1", null)).isEqualTo(chainId + ":2");
		assertThat(this.listener.chainStepResult(chainId, 1, Map.class)).contains(Map.of("price", 12));
		assertThat(this.listener.chainStepResult(chainId, 2, Map.class)).isEmpty();
		assertThatIllegalStateException().isThrownBy(() -> this.listener.chainStepResult(chainId, 4, Map.class))
			.withMessage("Chain " + chainId + " has no step 4: it has fewer steps, or it ended longer ago than "
					+ "redq.batches.linger and is no longer kept");
	}

	private static BatchMemberResult<String> result(String queue, String id, @Nullable String value) {
		return new BatchMemberResult<>(new BatchMember(queue, id), Optional.ofNullable(value));
	}

}
