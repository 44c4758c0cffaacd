package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.BatchStatus.State;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for batches ({@link RedisJobDispatcher#dispatchBatch}, {@link BatchOperations})
 * against a real Redis: each callback is enqueued exactly once, whatever is re-sent,
 * re-applied, run again, revived or acknowledged late.
 *
 * @author Redq team
 */
class BatchIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.dispatcher = new RedisJobDispatcher(this.operations, TestJobDefinitions.of(job("mail", "mail"),
				job("sms", "sms"), job("report", "callbacks"), job("close", "callbacks")), this.jsonMapper);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void eachCallbackIsEnqueuedOnceWhenTheLastMemberSucceeded() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "mail", "sms"))
			.onSuccess(JobRequest.of("report", "campaign-1").build())
			.onComplete(JobRequest.of("close", "campaign-1").build())
			.build());
		assertThat(batch.members()).extracting((result) -> result.outcome()).containsOnly(Outcome.CREATED);
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 3, 3, 0, 0, 0));
		succeed("mail");
		succeed("sms");
		handOverAll();
		assertThat(callbacks()).isEmpty();
		succeed("mail");
		assertThat(callbacks()).as("not before the hand-over").isEmpty();
		handOverAll();
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":success", batch.batchId() + ":complete");
		JsonNode success = this.jsonMapper.readTree((String) callbacks().get(batch.batchId() + ":success"));
		assertThat(success.get("job").asString()).isEqualTo("report");
		assertThat(success.get("headers").get(BatchRequest.BATCH_HEADER).asString()).isEqualTo(batch.batchId());
		assertThat(success.get("headers").get(BatchRequest.CALLBACK_HEADER).asString()).isEqualTo("success");
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.SUCCEEDED, BatchDeathPolicy.CARRY_ON, 3, 0, 3, 0, 0));
		handOverAll();
		assertThat(this.operations.stats("callbacks").ready()).isEqualTo(2);
	}

	@Test
	void membersCarryTheirBatchAndNothingIsLinkedOnAPlainQueue() {
		this.dispatcher.dispatch("sms", "plain");
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail")).build());
		String envelope = (String) this.template.opsForHash().get("redq:{mail}:jobs", batch.members().get(0).id());
		assertThat(this.jsonMapper.readTree(envelope).get("headers").get(BatchRequest.BATCH_HEADER).asString())
			.isEqualTo(batch.batchId());
		succeed("sms");
		assertThat(this.template.hasKey("redq:{sms}:batch-links")).isFalse();
		assertThat(this.template.hasKey("redq:{sms}:handover")).isFalse();
		assertThat(this.listener.migrate("sms").handOvers()).isFalse();
		succeed("mail");
		assertThat(this.listener.migrate("mail").handOvers()).isTrue();
		assertThat(this.template.hasKey("redq:{mail}:batch-links")).as("the link ends with the member").isFalse();
	}

	@Test
	void reSentAcksAndReAppliedHandOversChangeNothingEvenAfterTheCallbackRan() {
		BatchResult batch = this.dispatcher.dispatchBatch(
				BatchRequest.of(members("mail")).onSuccess(JobRequest.of("report", "campaign-1").build()).build());
		ReservedJob member = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		this.listener.getLeaseOperations().ack("mail", List.of(member.lease()));
		this.listener.getLeaseOperations().ack("mail", List.of(member.lease()));
		Set<String> handOvers = this.template.opsForZSet().range("redq:{mail}:handover", 0, -1);
		assertThat(handOvers).hasSize(1);
		handOverAll();
		// the callback runs and completes; then a mover that died before it removed the
		// hand-over and recorded the delivery applies it again
		succeed("callbacks");
		this.template.opsForZSet().add("redq:{mail}:handover", handOvers.iterator().next(), 0);
		this.template.opsForHash()
			.put("redq:batch:{" + batch.batchId() + "}:meta", "success",
					"callbacks\n" + batch.batchId() + ":success\nd\n0\n\"job\":\"report\"}");
		handOverAll();
		assertThat(callbacks()).as("the enqueue of the callback is remembered").isEmpty();
		assertThat(status(batch).succeeded()).isEqualTo(1);
		assertThat(this.template.opsForZSet().size("redq:{mail}:handover")).isZero();
	}

	@Test
	void aMemberRevivedFromTheDeadOrRunAgainChangesNothing() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "mail"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		String dead = kill("mail");
		handOverAll();
		assertThat(status(batch).dead()).isEqualTo(1);
		assertThat(this.operations.retryDead("mail", List.of(dead))).isEqualTo(1);
		List<ReservedJob> reserved = this.listener.reserve("mail", 2, LEASE).jobs();
		ReservedJob revived = reserved.stream().filter((job) -> job.id().equals(dead)).findFirst().orElseThrow();
		this.listener.getLeaseOperations().ack("mail", List.of(revived.lease()));
		assertThat(this.template.opsForZSet().size("redq:{mail}:handover")).isZero();
		handOverAll();
		assertThat(status(batch)).extracting(BatchStatus::state, BatchStatus::pending, BatchStatus::dead)
			.containsExactly(State.RUNNING, 1L, 1L);
		this.listener.getLeaseOperations()
			.ack("mail", reserved.stream().filter((job) -> job != revived).map(ReservedJob::lease).toList());
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.FAILED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 1, 0));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		assertThat(this.dispatcher.deadBatchMembers(batch.batchId(), 0, 10))
			.containsExactly(new BatchMember("mail", dead));
	}

	@Test
	void aMemberAcknowledgedLateCountsOnceAndItsNextRunNothing() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(members("mail")).onSuccess(JobRequest.of("report", "r").build()).build());
		ReservedJob first = this.listener.reserve("mail", 1, Duration.ofMillis(50)).jobs().get(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate("mail").expiredLeases() == 1);
		ReservedJob second = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		assertThat(second.id()).isEqualTo(first.id());
		this.listener.getLeaseOperations().ack("mail", List.of(second.lease()));
		assertThat(this.listener.getLeaseOperations().ack("mail", List.of(first.lease())))
			.as("late, and the job is gone")
			.isEmpty();
		assertThat(this.template.opsForZSet().size("redq:{mail}:handover")).isEqualTo(1);
		handOverAll();
		assertThat(status(batch).succeeded()).isEqualTo(1);
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":success");
	}

	@Test
	void failFastEndsTheBatchAtTheFirstDeathAndLaterMembersOnlyCount() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "sms", "sms"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.failFast()
			.build());
		kill("mail");
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.FAILED, BatchDeathPolicy.FAIL_FAST, 3, 2, 0, 1, 0));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		succeedAll("sms");
		handOverAll();
		assertThat(status(batch)).extracting(BatchStatus::state, BatchStatus::pending, BatchStatus::succeeded)
			.containsExactly(State.FAILED, 0L, 2L);
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
	}

	@Test
	void carryOnWaitsForEveryMemberAfterADeath() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "sms"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		kill("mail");
		handOverAll();
		assertThat(status(batch).state()).isEqualTo(State.RUNNING);
		assertThat(callbacks()).isEmpty();
		succeed("sms");
		handOverAll();
		assertThat(status(batch).state()).isEqualTo(State.FAILED);
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
	}

	@Test
	void cancelRemovesPendingMembersLetsRunningOnesFinishThenCompletes() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "mail", "sms"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		ReservedJob running = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		assertThat(this.dispatcher.cancelBatch(batch.batchId())).isTrue();
		assertThat(this.operations.stats("mail").ready()).isZero();
		assertThat(this.operations.stats("sms").ready()).isZero();
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 3, 1, 0, 0, 2));
		assertThat(callbacks()).isEmpty();
		this.listener.getLeaseOperations().ack("mail", List.of(running.lease()));
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.CANCELLED, BatchDeathPolicy.CARRY_ON, 3, 0, 1, 0, 2));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		assertThat(this.dispatcher.cancelBatch(batch.batchId())).as("ended").isFalse();
	}

	@Test // issue 37
	void aMemberAddsWorkToItsBatchWhichWaitsForItBeforeItsCallbacks() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		ReservedJob adder = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		List<DispatchResult> added = this.dispatcher.addToBatch(batch.batchId(), adder.id(), members("sms", "sms"));
		assertThat(added).extracting(DispatchResult::outcome).containsOnly(Outcome.CREATED);
		String envelope = (String) this.template.opsForHash().get("redq:{sms}:jobs", added.get(0).id());
		assertThat(this.jsonMapper.readTree(envelope).get("headers").get(BatchRequest.BATCH_HEADER).asString())
			.isEqualTo(batch.batchId());
		this.listener.getLeaseOperations().ack("mail", List.of(adder.lease()));
		handOverAll();
		assertThat(status(batch)).as("open until the added members finish")
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 3, 2, 1, 0, 0));
		assertThat(callbacks()).isEmpty();
		succeed("sms");
		handOverAll();
		assertThat(callbacks()).isEmpty();
		succeed("sms");
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.SUCCEEDED, BatchDeathPolicy.CARRY_ON, 3, 0, 3, 0, 0));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":success", batch.batchId() + ":complete");
	}

	@Test // issue 37
	void membersAddedToARunningBatchAreCancelledWithItInTheirQueues() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(members("mail")).onComplete(JobRequest.of("close", "c").build()).build());
		ReservedJob adder = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		this.dispatcher.addToBatch(batch.batchId(), adder.id(), members("sms"));
		assertThat(this.dispatcher.cancelBatch(batch.batchId())).isTrue();
		assertThat(this.operations.stats("sms").ready()).as("the added member's queue too").isZero();
		this.listener.getLeaseOperations().ack("mail", List.of(adder.lease()));
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.CANCELLED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 0, 1));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
	}

	@Test
	void membersAddedByAnInstanceThatDiedBeforeItEnqueuedThemAreCancelledOnceTheAddingMemberFinished() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		ReservedJob adder = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		List<DispatchResult> added = this.dispatcher.addToBatch(batch.batchId(), adder.id(), members("sms"));
		// the instance dies between an add and its enqueue
		BatchCreationOperations batches = new BatchOperations(this.operations.getStore()).getCreationOperations();
		assertThat(batches.add(batch.batchId(), adder.id(), "sms", "lost-call", List.of("lost-1", "lost-2")))
			.isEqualTo(2);
		assertThat(status(batch).pending()).isEqualTo(4);
		// the adding member's run ends: acknowledged here, the same for a retry or a
		// death
		this.listener.getLeaseOperations().ack("mail", List.of(adder.lease()));
		Set<String> handOvers = this.template.opsForZSet().range("redq:{mail}:handover", 0, -1);
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 4, 1, 1, 0, 2));
		// the enqueue comes late: it changes nothing
		List<EnqueueCommand> late = List.of(new EnqueueCommand("lost-1", Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"sms\",\"maxAttempts\":1,\"timeout\":0,\"payload\":\"late\"}"));
		assertThatIllegalStateException()
			.isThrownBy(() -> this.operations.getEnqueueOperations()
				.enqueueOnce("sms", "lost-call", late, Duration.ofMinutes(1), batch.batchId()))
			.withMessageContaining("nothing was enqueued");
		assertThat(this.operations.stats("sms").ready()).isEqualTo(1);
		// nor does the adding member's hand-over applied again
		this.template.opsForZSet().add("redq:{mail}:handover", handOvers.iterator().next(), 0);
		handOverAll();
		assertThat(status(batch).cancelled()).isEqualTo(2);
		assertThat(succeed("sms")).isEqualTo(added.get(0).id());
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.CANCELLED, BatchDeathPolicy.CARRY_ON, 4, 0, 2, 0, 2));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		assertThat(this.template.opsForHash().keys("redq:batch:{" + batch.batchId() + "}:meta"))
			.as("nothing left of the adds")
			.noneMatch((field) -> field.toString().startsWith("add"));
	}

	@Test // issue 37
	void membersAddedBeforeTheirBatchIsCancelledAndEnqueuedAfterAreNeverEnqueuedAndNoneIsAddedAfter() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(members("mail")).onComplete(JobRequest.of("close", "c").build()).build());
		ReservedJob adder = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		// a live member's add is recorded...
		BatchCreationOperations batches = new BatchOperations(this.operations.getStore()).getCreationOperations();
		batches.add(batch.batchId(), adder.id(), "sms", "slow-call", List.of("a1"));
		// ...its batch is cancelled...
		assertThat(this.dispatcher.cancelBatch(batch.batchId())).isTrue();
		// ...then the add's enqueue comes
		List<EnqueueCommand> late = List.of(new EnqueueCommand("a1", Due.NOW, DuplicatePolicy.KEEP,
				"\"job\":\"sms\",\"maxAttempts\":1,\"timeout\":0,\"payload\":\"late\"}"));
		assertThatIllegalStateException()
			.isThrownBy(() -> this.operations.getEnqueueOperations()
				.enqueueOnce("sms", "slow-call", late, Duration.ofMinutes(1), batch.batchId()))
			.withMessageContaining("nothing was enqueued");
		assertThat(this.template.hasKey("redq:{sms}:jobs")).as("the added member never runs").isFalse();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.dispatcher.addToBatch(batch.batchId(), adder.id(), members("sms")))
			.withMessageContaining("it ended (cancelled)");
		assertThat(this.template.hasKey("redq:{sms}:jobs")).isFalse();
		this.listener.getLeaseOperations().ack("mail", List.of(adder.lease()));
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.CANCELLED, BatchDeathPolicy.CARRY_ON, 2, 0, 1, 0, 1));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
	}

	@Test
	void membersEnqueuedByAnInstanceThatDiedBeforeItConfirmedTheirAddCount() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(members("mail")).onSuccess(JobRequest.of("report", "r").build()).build());
		ReservedJob adder = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		BatchCreationOperations batches = new BatchOperations(this.operations.getStore()).getCreationOperations();
		batches.add(batch.batchId(), adder.id(), "sms", "call", List.of("a1", "a2"));
		List<EnqueueCommand> commands = new ArrayList<>();
		for (String id : List.of("a1", "a2")) {
			commands.add(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
					"\"job\":\"sms\",\"maxAttempts\":1,\"timeout\":0,\"payload\":\"x\"}"));
		}
		this.operations.getEnqueueOperations()
			.enqueueOnce("sms", "call", commands, Duration.ofMinutes(1), batch.batchId());
		// the instance dies before it confirms the add; one added member finishes, its
		// hand-over not applied yet when the adding member's is
		this.listener.getLeaseOperations().ack("mail", List.of(adder.lease()));
		succeed("sms");
		this.listener.handOver("mail");
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 3, 2, 1, 0, 0));
		handOverAll();
		succeed("sms");
		handOverAll();
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.SUCCEEDED, BatchDeathPolicy.CARRY_ON, 3, 0, 3, 0, 0));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":success");
	}

	@Test // issue 37
	void addingToAnEndedBatchOrFromAFinishedMemberIsRefusedWithAClearMessage() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "mail")).build());
		ReservedJob first = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		this.listener.getLeaseOperations().ack("mail", List.of(first.lease()));
		handOverAll();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.dispatcher.addToBatch(batch.batchId(), first.id(), members("sms")))
			.withMessageContaining("job '" + first.id() + "' is not one of its pending members");
		succeed("mail");
		handOverAll();
		String second = batch.members().get(1).id();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.dispatcher.addToBatch(batch.batchId(), second, members("sms")))
			.withMessageContaining("it ended (succeeded)")
			.withMessageContaining("Members are added only while the batch runs");
		assertThatIllegalStateException().isThrownBy(() -> this.dispatcher.addToBatch("nope", second, members("sms")))
			.withMessageContaining("no batch is kept under that id");
		assertThat(this.operations.stats("sms").ready()).as("nothing enqueued").isZero();
		assertThat(status(batch).total()).isEqualTo(2);
	}

	@Test
	void membersThatFinishBeforeTheBatchIsOpenedEndItWhenItOpens() {
		BatchCreationOperations batches = this.operations.getBatchOperations().getCreationOperations();
		PreparedJob member = this.dispatcher.prepare(JobRequest.of("mail", "m").build());
		PreparedJob callback = this.dispatcher.prepare(JobRequest.of("close", "c").id("b1:complete").build());
		batches.create("b1", BatchDeathPolicy.CARRY_ON, Duration.ofMinutes(1), List.of("mail"),
				Map.of(BatchOperations.COMPLETE, callback), List.of(member.id()), null);
		this.enqueuer.enqueue("mail", List.of(member.command()), null, "b1");
		succeed("mail");
		handOverAll();
		assertThat(this.dispatcher.findBatch("b1").orElseThrow().state()).isEqualTo(State.CREATING);
		assertThat(this.template.getExpire("redq:batch:{b1}:meta")).as("expires unless opened").isPositive();
		assertThat(callbacks()).isEmpty();
		batches.seal("b1");
		assertThat(this.dispatcher.findBatch("b1").orElseThrow().state()).isEqualTo(State.SUCCEEDED);
		assertThat(callbacks()).containsOnlyKeys("b1:complete");
	}

	@Test
	void purgingAQueueCountsItsMembersCancelledSoThatTheBatchEndsOnce() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "mail", "mail", "sms"))
			.onSuccess(JobRequest.of("report", "r").build())
			.onComplete(JobRequest.of("close", "c").build())
			.build());
		succeed("mail");
		ReservedJob running = this.listener.reserve("mail", 1, LEASE).jobs().get(0);
		this.operations.purge("mail");
		BatchResult after = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail")).build());
		migrateAndHandOver("mail");
		assertThat(status(batch))
			.isEqualTo(new BatchStatus(batch.batchId(), State.RUNNING, BatchDeathPolicy.CARRY_ON, 4, 1, 1, 0, 2));
		assertThat(status(after).pending()).as("a member dispatched after the purge").isEqualTo(1);
		assertThat(this.template.opsForZSet().score("redq:{mail}:handover", "")).as("the sweep ended").isNull();
		// the purged run's late acknowledgement changes nothing
		assertThat(this.listener.getLeaseOperations().ack("mail", List.of(running.lease()))).isEmpty();
		succeed("sms");
		handOverAll();
		assertThat(status(batch).state()).isEqualTo(State.CANCELLED);
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		this.operations.purge("mail");
		migrateAndHandOver("mail");
		assertThat(status(batch).cancelled()).as("purged again: counted once").isEqualTo(2);
		assertThat(status(after).cancelled()).isEqualTo(1);
	}

	@Test
	void theMembersOfAPurgedQueueAreHandedOverAPageAPass() {
		List<JobRequest> members = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			members.add(JobRequest.of("mail", "m" + i).build());
		}
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(members).onComplete(JobRequest.of("close", "c").build()).build());
		this.operations.purge("mail");
		assertThat(this.listener.migrate("mail").handOvers()).isTrue();
		long first = this.template.opsForZSet().size("redq:{mail}:handover") - 1;
		assertThat(first).as("a page, not the whole hash").isPositive().isLessThan(500);
		int passes = 1;
		while (this.template.opsForZSet().score("redq:{mail}:handover", "") != null) {
			assertThat(this.listener.migrate("mail").nextDue()).as("due at once while pages are left").isZero();
			passes++;
		}
		assertThat(passes).isGreaterThan(2);
		handOverAll();
		handOverAll();
		assertThat(status(batch)).isEqualTo(
				new BatchStatus(batch.batchId(), State.CANCELLED, BatchDeathPolicy.CARRY_ON, 1000, 0, 0, 0, 1000));
		assertThat(callbacks()).containsOnlyKeys(batch.batchId() + ":complete");
		assertThat(this.template.hasKey("redq:{mail}:batch-links")).isFalse();
	}

	@Test
	void anEndedBatchLingersThenExpires() {
		this.dispatcher.setBatchLinger(Duration.ofMinutes(5));
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members("mail")).build());
		String meta = "redq:batch:{" + batch.batchId() + "}:meta";
		assertThat(this.template.getExpire(meta)).as("no expiry while it runs").isEqualTo(-1);
		succeed("mail");
		handOverAll();
		assertThat(this.template.getExpire(meta)).isBetween(200L, 300L);
		this.template.delete(meta);
		assertThat(this.dispatcher.findBatch(batch.batchId())).isEmpty();
	}

	@Test
	void aLargeBatchIsSentInChunksOfAThousand() {
		List<JobRequest> members = new ArrayList<>();
		for (int i = 0; i < 2500; i++) {
			members.add(JobRequest.of((i % 2 == 0) ? "mail" : "sms", "m" + i).build());
		}
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest.of(members).build());
		assertThat(batch.members()).hasSize(2500);
		assertThat(status(batch).pending()).isEqualTo(2500);
		assertThat(this.template.opsForHash().size("redq:{mail}:batch-links")).isEqualTo(1250);
		assertThat(this.operations.stats("sms").ready()).isEqualTo(1250);
	}

	@Test
	void badBatchesAreRefusedAtTheCallWithWhatToDo() {
		assertThatIllegalArgumentException().isThrownBy(() -> BatchRequest.of(List.of()))
			.withMessageContaining("at least one member");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BatchRequest.of(List.of(JobRequest.of("mail", "m").id("mine").build())))
			.withMessageContaining("Batch member 'mail' has the id 'mine'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher.dispatchBatch(BatchRequest.of(members("mail", "nope")).build()))
			.withMessageContaining("No job named 'nope'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher
				.dispatchBatch(BatchRequest.of(members("mail")).onComplete(JobRequest.of("nope", "c").build()).build()))
			.withMessageContaining("No job named 'nope'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BatchRequest.of(members("mail")).onSuccess(JobRequest.of("report", "r").id("x").build()))
			.withMessageContaining("on-success callback 'report' has the id 'x'");
		assertThatIllegalArgumentException().isThrownBy(() -> BatchRequest.of(members("mail")).onSuccess(null))
			.withMessageContaining("must be a JobRequest");
		assertThat(this.template.keys("redq:*")).as("nothing sent").isEmpty();
	}

	private static List<JobRequest> members(String... jobNames) {
		List<JobRequest> members = new ArrayList<>();
		for (String jobName : jobNames) {
			members.add(JobRequest.of(jobName, "payload").build());
		}
		return members;
	}

	private BatchStatus status(BatchResult batch) {
		return this.dispatcher.findBatch(batch.batchId()).orElseThrow();
	}

	private String succeed(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().ack(queue, List.of(job.lease()))).isEmpty();
		return job.id();
	}

	private void succeedAll(String queue) {
		List<Lease> leases = this.listener.reserve(queue, 100, LEASE).jobs().stream().map(ReservedJob::lease).toList();
		assertThat(this.listener.getLeaseOperations().ack(queue, leases)).isEmpty();
	}

	private String kill(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail(queue, job.lease(), "boom", null)).isTrue();
		assertThat(this.operations.stats(queue).dead()).isPositive();
		return job.id();
	}

	/** What the migrator of a queue does until it has nothing left to hand over. */
	private void migrateAndHandOver(String queue) {
		while (this.listener.migrate(queue).handOvers()) {
			this.listener.handOver(queue);
		}
	}

	/** What the migrators of the members' queues do. */
	private void handOverAll() {
		for (String queue : List.of("mail", "sms")) {
			this.listener.handOver(queue);
		}
	}

	/** The callbacks enqueued: id to envelope. */
	private Map<Object, Object> callbacks() {
		return this.template.opsForHash().entries("redq:{callbacks}:jobs");
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class);
	}

}
