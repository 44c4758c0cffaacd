package io.redq.queue.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.lettuce.core.cluster.SlotHash;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.State;
import io.redq.queue.core.ChainStatus.Step;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of chains on a three-node Redis Cluster started by the test on 127.0.0.1: steps
 * on queues of different slots start in order through the two-step hand-over, which
 * changes nothing when applied again; so do the ends of nested workflows, each in a slot
 * of its own.
 *
 * @author Redq team
 */
class ChainOnRedisClusterIntegrationTests extends AbstractWorkflowOnRedisClusterIntegrationTests {

	private static final List<String> QUEUES = List.of("q0", "q1", "q2");

	ChainOnRedisClusterIntegrationTests() {
		super("chains", job("first", "q0"), job("second", "q1"), job("third", "q2"), job("broken", "q0"),
				job("report", "q3"), job("close", "q3"));
	}

	@Test
	void stepsOnQueuesOfDifferentSlotsStartInOrderAndAHandOverAppliedAgainChangesNothing() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest
					.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build(),
							JobRequest.of("third", "c").build())
					.build());
		String id = chain.chainId();
		assertThat(QUEUES.stream().map((queue) -> SlotHash.getSlot(queue)).distinct()).hasSize(3);
		assertThat(SlotHash.getSlot(id)).isNotIn(QUEUES.stream().map(SlotHash::getSlot).toList());
		for (int i = 0; i < QUEUES.size(); i++) {
			String queue = QUEUES.get(i);
			for (String later : QUEUES.subList(i + 1, QUEUES.size())) {
				assertThat(this.operations.stats(later).ready()).as("no step before its predecessor succeeded")
					.isZero();
			}
			assertThat(succeed(queue)).isEqualTo(id + ":" + (i + 1));
			Set<String> handOvers = this.template.opsForZSet()
				.range(this.operations.getStore().keys(queue).handover(), 0, -1);
			assertThat(handOvers).hasSize(1);
			this.listener.handOver(queue);
			// a second mover applies the same hand-over again
			this.template.opsForZSet()
				.add(this.operations.getStore().keys(queue).handover(), handOvers.iterator().next(), 0);
			this.listener.handOver(queue);
		}
		assertThat(this.dispatcher.findChain(id).orElseThrow()).isEqualTo(new ChainStatus(id, State.SUCCEEDED, null,
				List.of(new Step("q0", id + ":1", StepState.SUCCEEDED), new Step("q1", id + ":2", StepState.SUCCEEDED),
						new Step("q2", id + ":3", StepState.SUCCEEDED))));
		for (String queue : QUEUES) {
			assertThat(this.operations.stats(queue).ready()).as("each step ran once").isZero();
		}
	}

	@Test
	void aStepThatDiesInAnotherSlotEnqueuesTheOnFailureJobOnce() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest
					.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build(),
							JobRequest.of("third", "c").build())
					.onFailure(JobRequest.of("broken", "x").build())
					.build());
		String id = chain.chainId();
		succeed("q0");
		this.listener.handOver("q0");
		ReservedJob second = this.listener.reserve("q1", 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail("q1", second.lease(), "boom", null)).isTrue();
		String handover = this.operations.getStore().keys("q1").handover();
		Set<String> handOvers = this.template.opsForZSet().range(handover, 0, -1);
		this.listener.handOver("q1");
		this.template.opsForZSet().add(handover, handOvers.iterator().next(), 0);
		this.listener.handOver("q1");
		assertThat(this.dispatcher.findChain(id).orElseThrow().steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.DEAD, StepState.CANCELLED);
		assertThat(this.operations.stats("q0").ready()).as("the on-failure job, once").isEqualTo(1);
		assertThat(succeed("q0")).isEqualTo(id + ":failure");
		assertThat(this.operations.stats("q2").ready()).isZero();
	}

	@Test
	void aChainAndABatchInABatchHandTheirEndsOverAcrossSlotsOnce() {
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.chain(ChainRequest.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build()).build())
			.batch(BatchRequest.of(List.of(JobRequest.of("third", "c").build())).build())
			.onSuccess(JobRequest.of("report", "x").build())
			.onComplete(JobRequest.of("close", "x").build())
			.build());
		String chainId = outer.members().get(1).id();
		String batchId = outer.members().get(0).id();
		assertThat(List.of(SlotHash.getSlot(outer.batchId()), SlotHash.getSlot(chainId), SlotHash.getSlot(batchId)))
			.as("each workflow in a slot of its own")
			.doesNotHaveDuplicates();
		succeedAndHandOverTwice("q2");
		succeedAndHandOverTwice("q0");
		assertThat(this.operations.stats("q3").ready()).as("no callback before the chain ended").isZero();
		succeedAndHandOverTwice("q1");
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().state())
			.isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(this.operations.stats("q3").ready()).as("each callback once").isEqualTo(2);
		// the inner workflows' ends handed over again change nothing
		this.operations.getBatchOperations()
			.handToParent(outer.batchId() + "\ns", BatchOperations.CHAIN_QUEUE, chainId);
		this.operations.getBatchOperations()
			.handToParent(outer.batchId() + "\ns", BatchOperations.BATCH_QUEUE, batchId);
		assertThat(this.dispatcher.findBatch(outer.batchId()).orElseThrow().succeeded()).isEqualTo(2);
		assertThat(this.operations.stats("q3").ready()).isEqualTo(2);
	}

	@Test
	void aBatchStepInAnotherSlotStartsTheNextStepOnceItSucceeded() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(JobRequest.of("first", "a").build())
			.step(BatchRequest.of(List.of(JobRequest.of("second", "b").build(), JobRequest.of("third", "c").build()))
				.build())
			.step(JobRequest.of("report", "x").build())
			.build());
		String id = chain.chainId();
		assertThat(SlotHash.getSlot(id + ":2")).isNotEqualTo(SlotHash.getSlot(id));
		succeedAndHandOverTwice("q0");
		assertThat(this.dispatcher.findBatch(id + ":2").orElseThrow().total()).isEqualTo(2);
		succeedAndHandOverTwice("q1");
		assertThat(this.operations.stats("q3").ready()).as("not before the batch succeeded").isZero();
		succeedAndHandOverTwice("q2");
		this.operations.getBatchOperations()
			.handToParent("chain:" + id + "\ns", BatchOperations.BATCH_QUEUE, id + ":2");
		assertThat(this.operations.stats("q3").ready()).as("the next step, once").isEqualTo(1);
		assertThat(succeed("q3")).isEqualTo(id + ":3");
	}

	@Test
	void aCancelBetweenALiveMoversReadOfTheNextStepAndItsEnqueueStartsNoStep() throws IOException {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest
					.of(JobRequest.of("first", "a").build(), JobRequest.of("second", "b").build(),
							JobRequest.of("third", "c").build())
					.build());
		String id = chain.chainId();
		succeed("q0");
		// a live mover applies the hand-over of step 1 and reads step 2 from the chain...
		List<?> read = applyHandOver(id, "q0", id + ":1");
		assertThat(read).element(1).isEqualTo("s2");
		// ...the chain is cancelled meanwhile...
		assertThat(this.dispatcher.cancelChain(id)).isTrue();
		// ...then the mover enqueues step 2 as it read it
		this.operations.getBatchOperations().chains().deliver(id, read);
		assertThat(this.template.hasKey(this.operations.getStore().keys("q1").jobs()))
			.as("the cancelled chain's step is never enqueued")
			.isFalse();
		this.listener.handOver("q0");
		assertThat(this.template.hasKey(this.operations.getStore().keys("q1").jobs())).isFalse();
		assertThat(this.dispatcher.findChain(id).orElseThrow()).satisfies((ended) -> {
			assertThat(ended.state()).isEqualTo(State.CANCELLED);
			assertThat(ended.steps()).extracting(Step::state)
				.containsExactly(StepState.SUCCEEDED, StepState.CANCELLED, StepState.CANCELLED);
		});
	}

	@Test
	void aCancelBetweenALiveMoversReadOfABatchStepAndItsCreationCreatesNoMember() throws IOException {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(JobRequest.of("first", "a").build())
			.step(BatchRequest.of(List.of(JobRequest.of("second", "b").build(), JobRequest.of("third", "c").build()))
				.build())
			.step(JobRequest.of("report", "x").build())
			.build());
		String id = chain.chainId();
		succeed("q0");
		List<?> read = applyHandOver(id, "q0", id + ":1");
		assertThat(read).element(1).isEqualTo("s2");
		assertThat(this.dispatcher.cancelChain(id)).isTrue();
		this.operations.getBatchOperations().chains().deliver(id, read);
		for (String queue : List.of("q1", "q2", "q3")) {
			assertThat(this.template.hasKey(this.operations.getStore().keys(queue).jobs()))
				.as("no member of the batch step is enqueued in %s", queue)
				.isFalse();
		}
		BatchStatus batch = this.dispatcher.findBatch(id + ":2").orElseThrow();
		assertThat(batch.state()).isEqualTo(BatchStatus.State.CANCELLED);
		assertThat(batch.total()).isZero();
		assertThat(this.dispatcher.findChain(id).orElseThrow().state()).isEqualTo(State.CANCELLED);
	}

	@Test
	void aCancelWhileALiveMoverCreatesABatchStepRunsNoMember() throws IOException {
		String id = dispatchChainWithABatchStep();
		// a live mover reads the batch step and creates the batch...
		BatchCommand batch = readAndCreateBatchStep(id);
		// ...the chain is cancelled meanwhile...
		assertThat(this.dispatcher.cancelChain(id)).isTrue();
		// ...a later call of the creation (a batch of more than 1,000 members) adds
		// none...
		assertThatIllegalStateException().isThrownBy(() -> create(id, batch)).withMessageContaining("cancelled");
		// ...then the mover goes on: the members' enqueues and the seal
		finishCreation(id, batch);
		for (String queue : List.of("q1", "q2", "q3")) {
			assertThat(this.template.hasKey(this.operations.getStore().keys(queue).jobs()))
				.as("no member of the batch step is enqueued in %s", queue)
				.isFalse();
		}
		assertThat(this.dispatcher.findBatch(batch.id()).orElseThrow()).satisfies((ended) -> {
			assertThat(ended.state()).isEqualTo(BatchStatus.State.CANCELLED);
			assertThat(ended.total()).isEqualTo(2);
			assertThat(ended.cancelled()).isEqualTo(2);
		});
		assertThat(this.dispatcher.findChain(id).orElseThrow().state()).isEqualTo(State.CANCELLED);
	}

	@Test
	void aCancelBetweenTheEnqueuesOfABatchStepsMembersRunsNoMember() throws IOException {
		String id = dispatchChainWithABatchStep();
		BatchCommand batch = readAndCreateBatchStep(id);
		// the mover enqueues the members of the first queue...
		new EnqueueOperations(this.operations.getStore()).enqueueOnce("q1", "chain:" + id + ":s2.0",
				List.of(batch.members().get(0).command()), window(), batch.id());
		// ...the chain is cancelled...
		assertThat(this.dispatcher.cancelChain(id)).isTrue();
		// ...and the mover goes on with the second
		finishCreation(id, batch);
		assertThat(this.listener.reserve("q1", 1, LEASE).jobs()).as("the member enqueued before is cancelled")
			.isEmpty();
		assertThat(this.template.hasKey(this.operations.getStore().keys("q2").jobs()))
			.as("the member after is never enqueued")
			.isFalse();
		this.listener.handOver("q1");
		assertThat(this.dispatcher.findBatch(batch.id()).orElseThrow()).satisfies((ended) -> {
			assertThat(ended.state()).isEqualTo(BatchStatus.State.CANCELLED);
			assertThat(ended.cancelled()).isEqualTo(2);
		});
		assertThat(this.template.hasKey(this.operations.getStore().keys("q3").jobs())).isFalse();
	}

	private String dispatchChainWithABatchStep() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(JobRequest.of("first", "a").build())
			.step(BatchRequest.of(List.of(JobRequest.of("second", "b").build(), JobRequest.of("third", "c").build()))
				.build())
			.step(JobRequest.of("report", "x").build())
			.build());
		succeed("q0");
		return chain.chainId();
	}

	/**
	 * Read a chain's batch step as a live mover does, and create the batch, by hand: the
	 * first step of {@link BatchCreationOperations#createOnce}.
	 */
	private BatchCommand readAndCreateBatchStep(String chainId) throws IOException {
		List<?> read = applyHandOver(chainId, "q0", chainId + ":1");
		assertThat(read).element(1).isEqualTo("s2");
		BatchCommand batch = BatchCommand.unnest(StoredJob.parse((String) read.get(2)));
		create(chainId, batch);
		assertThat(this.dispatcher.findBatch(batch.id()).orElseThrow().state()).isEqualTo(BatchStatus.State.CREATING);
		return batch;
	}

	private void create(String chainId, BatchCommand batch) {
		this.operations.getBatchOperations()
			.getCreationOperations()
			.create(batch.id(), batch.deathPolicy(), batch.linger(), List.of("q1", "q2"), Map.of(),
					batch.members().stream().map((member) -> member.command().id()).toList(),
					ChainOperations.link(chainId));
	}

	/**
	 * The rest of a batch step's creation by a live mover, as
	 * {@link BatchCreationOperations#createOnce} goes on after the batch's creation: the
	 * members' enqueues, then the seal.
	 */
	private void finishCreation(String chainId, BatchCommand batch) {
		BatchCreationOperations batches = this.operations.getBatchOperations().getCreationOperations();
		batches.enqueueMembers(batch, "chain:" + chainId + ":s2", window());
		batches.seal(batch.id());
	}

	private Duration window() {
		return this.operations.getStore().getResendProtection().getWindow();
	}

	/**
	 * Apply a step's success to its chain as a mover does, by hand: the chain script's
	 * reply is what that mover then enqueues.
	 */
	private List<?> applyHandOver(String chainId, String queue, String stepId) throws IOException {
		@SuppressWarnings("rawtypes")
		RedisScript<List> script = RedisScript.of(
				new ClassPathResource("chain.lua", ChainOperations.class).getContentAsString(StandardCharsets.UTF_8),
				List.class);
		return this.template.execute(script, List.of(this.operations.getStore().getKeyspace().chain(chainId)), "apply",
				queue, stepId, "s");
	}

}
