package io.redq.queue.redis;

import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.Step;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of workflows nested three levels deep on a three-node Redis Cluster started by
 * the test on 127.0.0.1: a batch holding a chain whose middle step is a batch, each
 * workflow under a hash tag of its own and the jobs in queues of different slots. Each
 * end is handed over level by level once, through the movers, whatever is applied again.
 *
 * @author Redq team
 */
class NestingOnRedisClusterIntegrationTests extends AbstractWorkflowOnRedisClusterIntegrationTests {

	NestingOnRedisClusterIntegrationTests() {
		super("nesting", job("first", "q0"), job("second", "q1"), job("third", "q2"), job("broken", "q3"),
				job("report", "q3"), job("close", "q3"));
	}

	@Test
	void aThreeLevelTreeAcrossSlotsHandsEachEndOverOnceAndStartsNoStepBeforeItsPredecessor() {
		BatchResult outer = this.dispatcher.dispatchBatch(threeLevels(BatchRequest.builder()));
		String chainId = outer.members().get(0).id();
		String innerId = chainId + ":2";
		// each workflow's state is under a hash tag of its own, its id
		assertThat(List.of(SlotHash.getSlot("q0"), SlotHash.getSlot("q1"), SlotHash.getSlot("q2")))
			.as("the jobs of each level in slots of their own")
			.doesNotHaveDuplicates();
		assertThat(this.operations.stats("q1").ready()).as("not before the step before succeeded").isZero();
		succeedAndHandOverTwice("q0");
		assertThat(this.dispatcher.findBatch(innerId).orElseThrow().total()).isEqualTo(2);
		succeedAndHandOverTwice("q1");
		assertThat(this.operations.stats("q2").ready()).as("not before the batch succeeded").isZero();
		succeedAndHandOverTwice("q1");
		assertThat(this.dispatcher.findBatch(innerId).orElseThrow().state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(this.operations.stats("q3").ready()).as("the inner batch's callback").isOne();
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().pending()).isOne();
		succeedAndHandOverTwice("q2");
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().state()).isEqualTo(ChainStatus.State.SUCCEEDED);
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow()).isEqualTo(new BatchStatus(outer.batchId(),
				BatchStatus.State.SUCCEEDED, BatchDeathPolicy.CARRY_ON, 1, 0, 1, 0, 0));
		// each level's end handed over again changes nothing
		handEndsOverAgain(outer.batchId(), chainId, innerId, "s");
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().succeeded()).isOne();
		assertThat(this.operations.stats("q3").ready()).as("each callback once: inner, then on-success, on-complete")
			.isEqualTo(3);
	}

	@Test
	void aDeathAtTheDeepestLevelUnderFailFastAcrossSlotsEndsEachLevelOnce() {
		BatchResult outer = this.dispatcher.dispatchBatch(threeLevels(BatchRequest.builder().failFast()));
		String chainId = outer.members().get(0).id();
		String innerId = chainId + ":2";
		succeedAndHandOverTwice("q0");
		killAndHandOverTwice("q1");
		assertThat(this.dispatcher.findBatch(innerId).orElseThrow().state()).isEqualTo(BatchStatus.State.FAILED);
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().steps()).containsExactly(
				new Step("q0", chainId + ":1", StepState.SUCCEEDED), new Step(null, innerId, StepState.DEAD),
				new Step("q2", chainId + ":3", StepState.CANCELLED));
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow()).isEqualTo(
				new BatchStatus(outer.batchId(), BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 1, 0, 0, 1, 0));
		handEndsOverAgain(outer.batchId(), chainId, innerId, "d");
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().dead()).isOne();
		assertThat(this.operations.stats("q3").ready())
			.as("each callback once: the inner on-complete, the on-failure job, the outer on-complete")
			.isEqualTo(3);
		assertThat(this.operations.stats("q2").ready()).as("the step after the dead one never starts").isZero();
	}

	@Test
	void aDeathAtTheDeepestLevelUnderCarryOnAcrossSlotsEndsEachLevelOnceItsLastMemberFinished() {
		BatchResult outer = this.dispatcher.dispatchBatch(threeLevels(BatchRequest.builder().carryOn()));
		String chainId = outer.members().get(0).id();
		String innerId = chainId + ":2";
		succeedAndHandOverTwice("q0");
		killAndHandOverTwice("q1");
		assertThat(this.dispatcher.findBatch(innerId).orElseThrow().state()).isEqualTo(BatchStatus.State.RUNNING);
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().state()).isEqualTo(ChainStatus.State.RUNNING);
		assertThat(this.operations.stats("q3").ready()).isZero();
		succeedAndHandOverTwice("q1");
		assertThat(this.dispatcher.findBatch(innerId).orElseThrow())
			.isEqualTo(new BatchStatus(innerId, BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().state()).isEqualTo(ChainStatus.State.FAILED);
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().state())
			.isEqualTo(BatchStatus.State.FAILED);
		handEndsOverAgain(outer.batchId(), chainId, innerId, "d");
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().dead()).isOne();
		assertThat(this.operations.stats("q3").ready()).as("each callback once").isEqualTo(3);
		assertThat(this.operations.stats("q2").ready()).as("the step after the dead one never starts").isZero();
	}

	/**
	 * A batch holding a chain whose second step is the given batch of two jobs.
	 */
	private static BatchRequest threeLevels(BatchRequest.Builder inner) {
		return BatchRequest.builder()
			.chain(ChainRequest.builder()
				.step(JobRequest.of("first", "a").build())
				.step(inner.member(JobRequest.of("second", "b").build())
					.member(JobRequest.of("second", "c").build())
					.onComplete(JobRequest.of("close", "inner").build())
					.build())
				.step(JobRequest.of("third", "d").build())
				.onFailure(JobRequest.of("broken", "x").build())
				.build())
			.onSuccess(JobRequest.of("report", "x").build())
			.onComplete(JobRequest.of("close", "x").build())
			.build();
	}

	/**
	 * Hand each nested workflow's end over again, as movers that died before they
	 * recorded it.
	 */
	private void handEndsOverAgain(String outerId, String chainId, String innerId, String outcome) {
		this.operations.getBatchOperations()
			.handToParent(ChainOperations.link(chainId) + "\n" + outcome, BatchOperations.BATCH_QUEUE, innerId);
		this.operations.getBatchOperations()
			.handToParent(outerId + "\n" + outcome, BatchOperations.CHAIN_QUEUE, chainId);
	}

	/** Fail a job of a queue past its attempts, then apply its hand-over twice. */
	private void killAndHandOverTwice(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail(queue, job.lease(), "boom", null)).isTrue();
		handOverTwice(queue);
	}

}
