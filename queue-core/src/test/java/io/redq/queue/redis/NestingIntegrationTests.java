package io.redq.queue.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.Step;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for nested workflows against a real Redis: a batch or a chain as a member of a
 * batch, and a batch as a step of a chain. The inner workflow's end completes its member
 * or step exactly once, whatever is re-applied, and the outer's callbacks fire once.
 *
 * @author Redq team
 */
class NestingIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final List<String> QUEUES = List.of("mail", "sms", "images", "web");

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.dispatcher = new RedisJobDispatcher(this.operations,
				TestJobDefinitions.of(job("mail", "mail"), job("sms", "sms"), job("resize", "images"),
						job("publish", "web"), job("report", "callbacks"), job("close", "callbacks"),
						job("broken", "callbacks")),
				JsonMapper.shared());
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void aBatchInABatchCompletesItsMemberOnceAndTheOuterCallbacksFireOnce() {
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.member(job("mail"))
			.batch(BatchRequest.of(List.of(job("sms"), job("sms"))).build())
			.onSuccess(JobRequest.of("report", "campaign").build())
			.onComplete(JobRequest.of("close", "campaign").build())
			.build());
		String innerId = outer.members().get(1).id();
		assertThat(status(outer.batchId())).isEqualTo(
				new BatchStatus(outer.batchId(), BatchStatus.State.RUNNING, BatchDeathPolicy.CARRY_ON, 2, 2, 0, 0, 0));
		assertThat(status(innerId).total()).isEqualTo(2);
		succeed("mail");
		succeed("sms");
		handOverAll();
		assertThat(status(outer.batchId()).pending()).as("the inner batch runs on").isEqualTo(1);
		ReservedJob lastMember = this.listener.reserve("sms", 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().ack("sms", List.of(lastMember.lease()))).isEmpty();
		// Lettuce re-sends the acknowledgement after a reconnect
		this.listener.getLeaseOperations().ack("sms", List.of(lastMember.lease()));
		Set<String> last = this.template.opsForZSet().range("redq:{sms}:handover", 0, -1);
		assertThat(last).as("one hand-over").hasSize(1);
		handOverAll();
		assertThat(status(innerId).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(status(outer.batchId())).isEqualTo(new BatchStatus(outer.batchId(), BatchStatus.State.SUCCEEDED,
				BatchDeathPolicy.CARRY_ON, 2, 0, 2, 0, 0));
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":success", outer.batchId() + ":complete");
		succeedAll("callbacks");
		// a mover that died before it removed the hand-over and recorded the inner's end
		// handed over applies both again
		this.template.opsForZSet().add("redq:{sms}:handover", last.iterator().next(), 0);
		this.template.opsForHash().put("redq:batch:{" + innerId + "}:meta", "parent", outer.batchId());
		handOverAll();
		this.operations.getBatchOperations()
			.handToParent(outer.batchId() + "\ns", BatchOperations.BATCH_QUEUE, innerId);
		assertThat(status(outer.batchId()).succeeded()).as("counted once").isEqualTo(2);
		assertThat(callbacks()).as("each callback once").isEmpty();
	}

	@Test
	void aNestedBatchReadsAsAMemberWithoutAResultAmongTheSucceeded() {
		BatchResult outer = this.dispatcher.dispatchBatch(
				BatchRequest.builder().member(job("mail")).batch(BatchRequest.of(List.of(job("sms"))).build()).build());
		String innerId = outer.members().get(1).id();
		String mailId = succeed("mail");
		succeed("sms");
		handOverAll();
		handOverAll();
		assertThat(status(outer.batchId()).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(this.operations.getBatchOperations().memberResults(outer.batchId(), String.class, 0, 10))
			.extracting(BatchMemberResult::member)
			.containsExactlyInAnyOrder(new BatchMember("mail", mailId),
					new BatchMember(null, innerId, BatchMember.Kind.BATCH));
	}

	@Test
	void aMoverKilledAfterItEndedANestedBatchLeavesItsEndForTheNextPass() {
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.batch(BatchRequest.of(List.of(job("sms"))).build())
			.onSuccess(JobRequest.of("report", "campaign").build())
			.build());
		String innerId = outer.members().get(0).id();
		String memberId = succeed("sms");
		// the mover applies the member's hand-over, which ends the inner batch, and dies
		// before it hands the end over and removes the hand-over
		List<?> undelivered = this.template.execute(
				RedisScript.of(new ClassPathResource("batch.lua", BatchOperations.class), List.class),
				this.operations.getStore().batchKeys(innerId).all(), "apply", "sms", memberId, "s");
		assertThat(undelivered).map(Object::toString).contains("parent", outer.batchId() + "\ns");
		assertThat(status(innerId).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(status(outer.batchId()).pending()).isEqualTo(1);
		handOverAll();
		assertThat(status(outer.batchId()).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":success");
	}

	@Test
	void aChainInABatchThatFailsKillsItsMemberSoOnCompleteFiresAndOnSuccessDoesNot() {
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.member(job("mail"))
			.chain(ChainRequest.of(job("resize"), job("publish"))
				.onFailure(JobRequest.of("broken", "x").build())
				.build())
			.onSuccess(JobRequest.of("report", "campaign").build())
			.onComplete(JobRequest.of("close", "campaign").build())
			.build());
		String chainId = outer.members().get(1).id();
		succeed("mail");
		succeed("images");
		handOverAll();
		kill("web");
		Set<String> death = this.template.opsForZSet().range("redq:{web}:handover", 0, -1);
		handOverAll();
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().state()).isEqualTo(ChainStatus.State.FAILED);
		assertThat(status(outer.batchId())).isEqualTo(
				new BatchStatus(outer.batchId(), BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(this.dispatcher.deadBatchMembers(outer.batchId(), 0, 10))
			.containsExactly(new BatchMember(null, chainId, BatchMember.Kind.CHAIN));
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":complete", chainId + ":failure");
		succeedAll("callbacks");
		this.template.opsForZSet().add("redq:{web}:handover", death.iterator().next(), 0);
		handOverAll();
		this.operations.getBatchOperations()
			.handToParent(outer.batchId() + "\nd", BatchOperations.CHAIN_QUEUE, chainId);
		assertThat(status(outer.batchId()).dead()).as("counted once").isEqualTo(1);
		assertThat(callbacks()).as("each callback once").isEmpty();
	}

	@Test
	void aBatchStepStartsAfterTheStepBeforeAndTheNextStepAfterItSucceeded() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(job("resize"))
			.step(BatchRequest.of(List.of(job("mail"), job("sms"))).build())
			.step(job("publish"))
			.build());
		String id = chain.chainId();
		assertThat(chain.stepIds()).containsExactly(id + ":1", id + ":2", id + ":3");
		assertThat(this.dispatcher.findBatch(id + ":2")).as("not before the step before succeeded").isEmpty();
		succeed("images");
		handOverAll();
		assertThat(status(id + ":2").total()).isEqualTo(2);
		assertThat(chainStatus(id).steps()).containsExactly(new Step("images", id + ":1", StepState.SUCCEEDED),
				new Step(null, id + ":2", StepState.RUNNING), new Step("web", id + ":3", StepState.PENDING));
		succeed("mail");
		handOverAll();
		assertThat(this.operations.stats("web").ready()).as("not before the batch succeeded").isZero();
		succeed("sms");
		handOverAll();
		assertThat(chainStatus(id).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.SUCCEEDED, StepState.RUNNING);
		assertThat(succeed("web")).isEqualTo(id + ":3");
		handOverAll();
		assertThat(chainStatus(id).state()).isEqualTo(ChainStatus.State.SUCCEEDED);
		for (String queue : QUEUES) {
			assertThat(this.operations.stats(queue).ready()).as("each step and member ran once").isZero();
		}
	}

	@Test
	void aBatchStepThatFailsEndsTheChainAndItsOnFailureJobRunsOnce() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.builder()
			.step(BatchRequest.of(List.of(job("mail"), job("sms"))).failFast().build())
			.step(job("publish"))
			.onFailure(JobRequest.of("broken", "x").build())
			.build());
		String id = chain.chainId();
		kill("mail");
		handOverAll();
		ChainStatus failed = chainStatus(id);
		assertThat(failed.state()).isEqualTo(ChainStatus.State.FAILED);
		assertThat(failed.reason()).isEqualTo("step 1 (batch " + id + ":1) failed");
		assertThat(failed.steps()).extracting(Step::state).containsExactly(StepState.DEAD, StepState.CANCELLED);
		assertThat(callbacks()).containsOnlyKeys(id + ":failure");
		succeedAll("callbacks");
		succeed("sms");
		handOverAll();
		this.operations.getBatchOperations()
			.handToParent("chain:" + id + "\nd", BatchOperations.BATCH_QUEUE, id + ":1");
		assertThat(callbacks()).as("the on-failure job once").isEmpty();
		assertThat(this.operations.stats("web").ready()).as("the later step never starts").isZero();
	}

	@Test
	void cancellingABatchCancelsItsNestedChain() {
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.chain(ChainRequest.of(job("resize"), job("publish")).build())
			.onComplete(JobRequest.of("close", "campaign").build())
			.build());
		String chainId = outer.members().get(0).id();
		assertThat(this.dispatcher.cancelBatch(outer.batchId())).isTrue();
		handOverAll();
		assertThat(this.dispatcher.findChain(chainId).orElseThrow().state()).isEqualTo(ChainStatus.State.CANCELLED);
		assertThat(status(outer.batchId()).state()).isEqualTo(BatchStatus.State.CANCELLED);
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":complete");
	}

	@Test
	void aChainCancelledWhileAMoverCreatesItsBatchStepOfNestedWorkflowsStartsNothingAfterAndEachEnds() {
		// the cancel overtakes the mover after each piece of the batch step's creation:
		// the batch, its nested chain, its nested batch, its seal, its delivery
		boolean more = true;
		for (int cut = 1; more; cut++) {
			String id = this.dispatcher
				.dispatchChain(ChainRequest.builder()
					.step(job("resize"))
					.step(BatchRequest.builder()
						.chain(ChainRequest.of(job("sms"), job("publish")).build())
						.batch(BatchRequest.of(List.of(job("mail"))).build())
						.build())
					.build())
				.chainId();
			succeed("images");
			Map<String, String> nested = new HashMap<>();
			BatchCommand
				.unnest(StoredJob.parse((String) this.template.opsForHash().get("redq:chain:{" + id + "}:meta", "s2")))
				.members()
				.forEach((member) -> nested.put(member.queue(), member.command().id()));
			StalledMover mover = StalledMover.applyHandOvers(this.operations.getStore(),
					this.operations.getBatchOperations(), "images");
			for (int piece = 0; piece < cut; piece++) {
				mover.goOn();
			}
			more = mover.stalled();
			assertThat(this.dispatcher.cancelChain(id)).isTrue();
			while (mover.stalled()) {
				mover.goOn();
			}
			handOverAll();
			for (String queue : QUEUES) {
				assertThat(this.operations.stats(queue).pending()).as("nothing waits in %s (cut %d)", queue, cut)
					.isZero();
			}
			assertThat(chainStatus(id).state()).isEqualTo(ChainStatus.State.CANCELLED);
			BatchStatus step = status(id + ":2");
			assertThat(step.state()).isEqualTo(BatchStatus.State.CANCELLED);
			assertThat(step.cancelled()).as("each nested workflow counted once").isEqualTo(2);
			String nestedChain = nested.get(BatchOperations.CHAIN_QUEUE);
			String nestedBatch = nested.get(BatchOperations.BATCH_QUEUE);
			assertThat(chainStatus(nestedChain).state()).isEqualTo(ChainStatus.State.CANCELLED);
			assertThat(status(nestedBatch).state()).isEqualTo(BatchStatus.State.CANCELLED);
			assertKeysExpire(cut, id, id + ":2", nestedChain, nestedBatch);
		}
	}

	@ParameterizedTest(name = "cancel of the nested chain re-sent: {0}")
	@ValueSource(booleans = { false, true })
	void aNestedChainCancelledBetweenItsCreationAndItsFirstStepsEnqueueStartsNoStepAndEnds(boolean resent) {
		String id = this.dispatcher
			.dispatchChain(ChainRequest.builder()
				.step(job("resize"))
				.step(BatchRequest.builder().chain(ChainRequest.of(job("sms"), job("publish")).build()).build())
				.build())
			.chainId();
		succeed("images");
		// a mover applies the first step's end and reads the batch step, which it
		// creates as ChainOperations#deliver does, up to its nested chain's first step
		ChainOperations chains = this.operations.getBatchOperations().chains();
		chains.run(id, List.of("apply", "images", id + ":1", "s"));
		String meta = "redq:chain:{" + id + "}:meta";
		BatchCommand step = BatchCommand.unnest(StoredJob.parse((String) this.template.opsForHash().get(meta, "s2")));
		Duration window = chains
			.deliveryWindow(Duration.ofMillis(Long.parseLong((String) this.template.opsForHash().get(meta, "linger"))));
		String callId = "chain:" + id + ":s2";
		BatchCreationOperations creation = this.operations.getBatchOperations().getCreationOperations();
		assertThat(creation.create(step, window, ChainOperations.link(id))).isTrue();
		ChainCommand nested = ChainCommand.unnest(step.members().get(0));
		String link = chains.create(nested, window, step.id());
		if (resent) {
			// the batch step's cancel cancels the nested chain, whose reply is lost:
			// Lettuce re-sends the call, and the caller sees only its reply
			chains.run(nested.id(), List.of("cancel", "creating"));
		}
		assertThat(this.dispatcher.cancelChain(id)).isTrue();
		PreparedCommand first = nested.steps().get(0);
		assertThatExceptionOfType(EnqueueOperations.Forestalled.class).isThrownBy(() -> this.enqueuer
			.enqueueOnce(first.queue(), callId + "/" + nested.id() + ".1", List.of(first.command()), window, link));
		chains.open(nested.id());
		creation.seal(step.id());
		chains.run(id, List.of("delivered", "s2"));
		handOverAll();
		for (String queue : QUEUES) {
			assertThat(this.operations.stats(queue).pending()).as("nothing waits in %s", queue).isZero();
		}
		assertThat(chainStatus(id).state()).isEqualTo(ChainStatus.State.CANCELLED);
		assertThat(status(step.id()).state()).isEqualTo(BatchStatus.State.CANCELLED);
		assertThat(status(step.id()).cancelled()).isEqualTo(1);
		assertThat(chainStatus(nested.id()).state()).isEqualTo(ChainStatus.State.CANCELLED);
		assertKeysExpire(0, id, step.id(), nested.id());
	}

	@Test
	void aNestedChainCancelledBeforeAStalledMoverEnqueuedItsNextStepHandsItsEndToItsBatch() {
		BatchResult outer = this.dispatcher.dispatchBatch(
				BatchRequest.builder().chain(ChainRequest.of(job("resize"), job("publish")).build()).build());
		String chainId = outer.members().get(0).id();
		succeed("images");
		// the mover read the chain's next step, which the cancel forestalls: no hand-over
		// of that step ever comes
		StalledMover mover = StalledMover.applyHandOvers(this.operations.getStore(),
				this.operations.getBatchOperations(), "images");
		assertThat(this.dispatcher.cancelBatch(outer.batchId())).isTrue();
		while (mover.stalled()) {
			mover.goOn();
		}
		handOverAll();
		assertThat(this.operations.stats("web").pending()).isZero();
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.CANCELLED);
		assertThat(status(outer.batchId()).state()).isEqualTo(BatchStatus.State.CANCELLED);
	}

	/** Every key of each workflow, kept once it ended, expires. */
	private void assertKeysExpire(int cut, String... workflows) {
		for (String workflow : workflows) {
			Set<String> keys = this.template.keys("*{" + workflow + "}*");
			assertThat(keys).as("the keys of %s (cut %d)", workflow, cut)
				.isNotEmpty()
				.allSatisfy((key) -> assertThat(this.template.getExpire(key)).as(key).isPositive());
		}
	}

	@Test
	void aThreeLevelTreeHandsEachEndOverLevelByLevelOnceAndStartsNoStepBeforeItsPredecessor() {
		BatchResult outer = this.dispatcher
			.dispatchBatch(threeLevels(BatchRequest.of(List.of(job("sms"), job("sms")))));
		String chainId = outer.members().get(1).id();
		String innerId = chainId + ":2";
		assertThat(this.dispatcher.findBatch(innerId)).as("not before the step before succeeded").isEmpty();
		assertThat(this.operations.stats("sms").ready()).isZero();
		succeed("images");
		handOverAll();
		assertThat(status(innerId).total()).isEqualTo(2);
		succeed("sms");
		handOverAll();
		assertThat(this.operations.stats("web").ready()).as("not before the batch succeeded").isZero();
		succeed("mail");
		succeed("sms");
		Set<String> last = this.template.opsForZSet().range("redq:{sms}:handover", 0, -1);
		handOverAll();
		assertThat(status(innerId).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(chainStatus(chainId).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.SUCCEEDED, StepState.RUNNING);
		assertThat(status(outer.batchId()).pending()).as("the chain runs on").isEqualTo(1);
		assertThat(callbacks()).containsOnlyKeys(innerId + ":complete");
		succeedAll("callbacks");
		assertThat(succeed("web")).isEqualTo(chainId + ":3");
		handOverAll();
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.SUCCEEDED);
		assertThat(status(outer.batchId())).isEqualTo(new BatchStatus(outer.batchId(), BatchStatus.State.SUCCEEDED,
				BatchDeathPolicy.CARRY_ON, 2, 0, 2, 0, 0));
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":success", outer.batchId() + ":complete");
		succeedAll("callbacks");
		// every level's end applied again, as movers that died before they recorded it
		handEachEndOverAgain(last, outer.batchId(), chainId, innerId, "s");
		assertThat(status(innerId).succeeded()).as("counted once").isEqualTo(2);
		assertThat(status(outer.batchId()).succeeded()).as("counted once").isEqualTo(2);
		for (String queue : QUEUES) {
			assertThat(this.operations.stats(queue).ready()).as("each step and member ran once").isZero();
		}
	}

	@Test
	void aDeathAtTheDeepestLevelUnderFailFastEndsEachLevelOnce() {
		BatchResult outer = this.dispatcher
			.dispatchBatch(threeLevels(BatchRequest.of(List.of(job("sms"), job("sms"))).failFast()));
		String chainId = outer.members().get(1).id();
		String innerId = chainId + ":2";
		succeed("images");
		handOverAll();
		kill("sms");
		Set<String> death = this.template.opsForZSet().range("redq:{sms}:handover", 0, -1);
		handOverAll();
		assertThat(status(innerId).state()).as("at the first death").isEqualTo(BatchStatus.State.FAILED);
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.FAILED);
		assertThat(chainStatus(chainId).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.DEAD, StepState.CANCELLED);
		assertThat(status(outer.batchId()).dead()).isEqualTo(1);
		assertThat(status(outer.batchId()).state()).as("the outer batch carries on")
			.isEqualTo(BatchStatus.State.RUNNING);
		assertThat(callbacks()).containsOnlyKeys(innerId + ":complete", chainId + ":failure");
		succeedAll("callbacks");
		succeed("mail");
		handOverAll();
		assertThat(status(outer.batchId())).isEqualTo(
				new BatchStatus(outer.batchId(), BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(callbacks()).containsOnlyKeys(outer.batchId() + ":complete");
		succeedAll("callbacks");
		// the other member finishes late, and every level's end is applied again
		succeedAll("sms");
		handEachEndOverAgain(death, outer.batchId(), chainId, innerId, "d");
		assertThat(status(outer.batchId()).dead()).as("counted once").isEqualTo(1);
		assertThat(this.operations.stats("web").ready()).as("the step after the dead one never starts").isZero();
	}

	@Test
	void aDeathAtTheDeepestLevelUnderCarryOnEndsEachLevelOnceItsLastMemberFinished() {
		BatchResult outer = this.dispatcher
			.dispatchBatch(threeLevels(BatchRequest.of(List.of(job("sms"), job("sms"))).carryOn()));
		String chainId = outer.members().get(1).id();
		String innerId = chainId + ":2";
		succeed("mail");
		succeed("images");
		handOverAll();
		kill("sms");
		handOverAll();
		assertThat(status(innerId).state()).as("the inner batch carries on").isEqualTo(BatchStatus.State.RUNNING);
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.RUNNING);
		assertThat(status(outer.batchId()).pending()).isEqualTo(1);
		assertThat(callbacks()).isEmpty();
		succeed("sms");
		Set<String> last = this.template.opsForZSet().range("redq:{sms}:handover", 0, -1);
		handOverAll();
		assertThat(status(innerId))
			.isEqualTo(new BatchStatus(innerId, BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.FAILED);
		assertThat(status(outer.batchId())).isEqualTo(
				new BatchStatus(outer.batchId(), BatchStatus.State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(callbacks()).containsOnlyKeys(innerId + ":complete", chainId + ":failure",
				outer.batchId() + ":complete");
		succeedAll("callbacks");
		handEachEndOverAgain(last, outer.batchId(), chainId, innerId, "d");
		assertThat(status(outer.batchId()).dead()).as("counted once").isEqualTo(1);
		assertThat(this.operations.stats("web").ready()).as("the step after the dead one never starts").isZero();
	}

	@Test
	void aFiveLevelTreeWhoseDeepLevelsWaitInAChainStepRunsToItsEnd() {
		// the batch step waits in its chain with a chain and a batch nested in it
		BatchRequest deep = BatchRequest.builder()
			.chain(ChainRequest.builder()
				.step(job("publish"))
				.step(BatchRequest.of(List.of(job("sms")))
					.onComplete(JobRequest.of("close", "deepest").build())
					.build())
				.build())
			.build();
		BatchResult outer = this.dispatcher.dispatchBatch(BatchRequest.builder()
			.chain(ChainRequest.builder().step(job("resize")).step(deep).build())
			.onSuccess(JobRequest.of("report", "campaign").build())
			.build());
		String chainId = outer.members().get(0).id();
		succeed("images");
		handOverAll();
		assertThat(status(chainId + ":2").total()).isEqualTo(1);
		String publish = succeed("web");
		String deepestId = publish.substring(0, publish.lastIndexOf(':')) + ":2";
		handOverAll();
		assertThat(status(deepestId).total()).isEqualTo(1);
		succeed("sms");
		handOverAll();
		assertThat(status(deepestId).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(status(chainId + ":2").state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(chainStatus(chainId).state()).isEqualTo(ChainStatus.State.SUCCEEDED);
		assertThat(status(outer.batchId()).state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		assertThat(callbacks()).containsOnlyKeys(deepestId + ":complete", outer.batchId() + ":success");
	}

	@Test
	void nestingDeeperThanTheMaximumAndEmptyWorkflowsAreRefusedAtTheCall() {
		BatchRequest deepest = BatchRequest.of(List.of(job("mail"))).build();
		for (int depth = 2; depth < BatchRequest.MAX_DEPTH; depth++) {
			deepest = BatchRequest.builder().batch(deepest).build();
		}
		BatchRequest sevenLevels = deepest;
		BatchRequest eightLevels = BatchRequest.builder().batch(sevenLevels).build();
		assertThatIllegalArgumentException().isThrownBy(() -> BatchRequest.builder().batch(eightLevels))
			.withMessageContaining("workflows nest at most 8 levels deep");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ChainRequest.builder().step(job("resize")).step(eightLevels))
			.withMessageContaining("workflows nest at most 8 levels deep");
		ChainRequest eightLevelChain = ChainRequest.builder().step(job("resize")).step(sevenLevels).build();
		assertThatIllegalArgumentException().isThrownBy(() -> BatchRequest.builder().chain(eightLevelChain))
			.withMessageContaining("The nested chain nests 8 levels");
		assertThatIllegalArgumentException().isThrownBy(() -> BatchRequest.builder().build())
			.withMessageContaining("at least one member");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ChainRequest.builder().step(BatchRequest.of(List.of(job("mail"))).build()).build())
			.withMessageContaining("at least two steps");
		assertThat(this.template.keys("redq:*")).as("nothing sent").isEmpty();
	}

	/**
	 * A batch of a job and a chain whose second step is the given batch: three levels.
	 */
	private static BatchRequest threeLevels(BatchRequest.Builder deepest) {
		return BatchRequest.builder()
			.member(job("mail"))
			.chain(ChainRequest.builder()
				.step(job("resize"))
				.step(deepest.onComplete(JobRequest.of("close", "inner").build()).build())
				.step(job("publish"))
				.onFailure(JobRequest.of("broken", "x").build())
				.build())
			.onSuccess(JobRequest.of("report", "campaign").build())
			.onComplete(JobRequest.of("close", "campaign").build())
			.build();
	}

	private static JobRequest job(String jobName) {
		return JobRequest.of(jobName, "x").build();
	}

	private BatchStatus status(String batchId) {
		return this.dispatcher.findBatch(batchId).orElseThrow();
	}

	private ChainStatus chainStatus(String chainId) {
		return this.dispatcher.findChain(chainId).orElseThrow();
	}

	private String succeed(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().ack(queue, List.of(job.lease()))).isEmpty();
		return job.id();
	}

	private void succeedAll(String queue) {
		while (this.operations.stats(queue).ready() > 0) {
			succeed(queue);
		}
	}

	private void kill(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail(queue, job.lease(), "boom", null)).isTrue();
		assertThat(this.operations.stats(queue).dead()).isPositive();
	}

	/** What the migrators of the queues do. */
	private void handOverAll() {
		for (String queue : QUEUES) {
			this.listener.handOver(queue);
		}
	}

	/** The callbacks enqueued: id to envelope. */
	private Map<Object, Object> callbacks() {
		return this.template.opsForHash().entries("redq:{callbacks}:jobs");
	}

	/**
	 * Apply the given hand-over of sms again, then each nested level's end (the inner
	 * batch's to its chain, the chain's to the outer batch), as movers that died before
	 * they recorded them: no callback comes again.
	 */
	private void handEachEndOverAgain(Set<String> handOver, String outerId, String chainId, String innerId,
			String outcome) {
		this.template.opsForZSet().add("redq:{sms}:handover", handOver.iterator().next(), 0);
		handOverAll();
		BatchOperations batches = this.operations.getBatchOperations();
		batches.handToParent(ChainOperations.link(chainId) + "\n" + outcome, BatchOperations.BATCH_QUEUE, innerId);
		batches.handToParent(outerId + "\n" + outcome, BatchOperations.CHAIN_QUEUE, chainId);
		assertThat(callbacks()).as("each callback once").isEmpty();
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class);
	}

}
