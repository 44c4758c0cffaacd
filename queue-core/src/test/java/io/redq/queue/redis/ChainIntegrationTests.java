package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.State;
import io.redq.queue.core.ChainStatus.Step;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for chains ({@link RedisJobDispatcher#dispatchChain}, {@link ChainOperations})
 * against a real Redis: each step starts only after the one before succeeded, once,
 * whatever is re-sent, re-applied, run again or acknowledged late, and a dead step ends
 * the chain with its on-failure job enqueued once.
 *
 * @author Redq team
 */
class ChainIntegrationTests extends AbstractQueueIntegrationTests {

	private static final String QUOTED = "resize \"large\"";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.dispatcher = new RedisJobDispatcher(this.operations, TestJobDefinitions.of(job("resize", "images"),
				job("watermark", "images"), job("publish", "web"), job("broken", "callbacks"), job(QUOTED, "images")),
				this.jsonMapper);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void eachStepStartsOnlyAfterTheOneBeforeSucceeded() {
		ChainResult chain = this.dispatcher.dispatchChain(acrossQueues().onFailure(broken()).build());
		String id = chain.chainId();
		assertThat(chain.stepIds()).containsExactly(id + ":1", id + ":2", id + ":3");
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.RUNNING, StepState.PENDING, StepState.PENDING);
		assertThat(this.operations.stats("images").ready()).isEqualTo(1);
		assertThat(succeed("images")).isEqualTo(id + ":1");
		assertThat(this.operations.stats("web").ready()).as("not before the hand-over").isZero();
		handOverAll();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.RUNNING, StepState.PENDING);
		String envelope = (String) this.template.opsForHash().get("redq:{web}:jobs", id + ":2");
		JsonNode headers = this.jsonMapper.readTree(envelope).get("headers");
		assertThat(headers.get(ChainRequest.CHAIN_HEADER).asString()).isEqualTo(id);
		assertThat(headers.get(ChainRequest.STEP_HEADER).asString()).isEqualTo("2");
		assertThat(this.operations.stats("images").ready()).isZero();
		assertThat(succeed("web")).isEqualTo(id + ":2");
		handOverAll();
		assertThat(succeed("images")).isEqualTo(id + ":3");
		handOverAll();
		assertThat(status(chain)).isEqualTo(new ChainStatus(id, State.SUCCEEDED, null,
				List.of(new Step("images", id + ":1", StepState.SUCCEEDED),
						new Step("web", id + ":2", StepState.SUCCEEDED),
						new Step("images", id + ":3", StepState.SUCCEEDED))));
		assertThat(callbacks()).as("no on-failure job after a success").isEmpty();
		assertThat(this.template.opsForHash().entries("redq:chain:{" + id + "}:meta")).as("nothing left to enqueue")
			.doesNotContainKeys("s2", "s3", "failure");
	}

	@Test
	void aStepInTheQueueOfTheOneBeforeIsCreatedByItsAcknowledgement() {
		ChainResult chain = this.dispatcher
			.dispatchChain(ChainRequest.of(step("resize"), step("watermark"), step("resize"), step("publish")).build());
		String id = chain.chainId();
		assertThat(this.template.opsForHash().entries("redq:chain:{" + id + "}:meta"))
			.as("kept by the links in their queue")
			.doesNotContainKeys("s2", "s3")
			.containsKey("s4");
		assertThat(succeed("images")).isEqualTo(id + ":1");
		assertThat(this.template.opsForZSet().range("redq:{images}:handover", 0, -1))
			.as("the hand-over names the chain alone")
			.containsExactly("chain:" + id + "\n" + id + ":1\ns");
		assertThat(succeed("images")).as("created in the same step, before any hand-over").isEqualTo(id + ":2");
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.RUNNING, StepState.PENDING, StepState.PENDING, StepState.PENDING);
		assertThat(succeed("images")).isEqualTo(id + ":3");
		assertThat(this.operations.stats("web").ready()).as("another queue: after the hand-overs").isZero();
		// step 3's hand-over applied first: counted all the same
		this.template.opsForZSet().add("redq:{images}:handover", "chain:" + id + "\n" + id + ":3\ns", 0);
		handOverAll();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.SUCCEEDED, StepState.SUCCEEDED, StepState.RUNNING);
		assertThat(succeed("web")).isEqualTo(id + ":4");
		handOverAll();
		assertThat(status(chain).state()).isEqualTo(State.SUCCEEDED);
		assertThat(this.template.hasKey("redq:{images}:batch-links")).isFalse();
	}

	@Test
	void eachStepCountsAsDispatchedOnceWhateverQueueTheStepBeforeWasIn() {
		List<String> dispatched = new CopyOnWriteArrayList<>();
		this.operations.setMetrics(new JobMetrics() {

			@Override
			public void dispatched(String queue, String job) {
				dispatched.add(queue + " " + job);
			}

		});
		this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("watermark"), step("resize")).build());
		succeed("images");
		// created by the acknowledgement of the step before, in the same script call
		succeed("images");
		succeed("images");
		assertThat(dispatched).containsExactly("images resize", "images watermark", "images resize");
		dispatched.clear();
		this.dispatcher.dispatchChain(acrossQueues().build());
		succeed("images");
		handOverAll();
		succeed("web");
		handOverAll();
		assertThat(dispatched).containsExactly("images resize", "web publish", "images watermark");
		succeed("images");
		dispatched.clear();
		// a step acknowledged again creates and counts nothing
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("watermark")).build());
		ReservedJob first = this.listener.reserve("images", 1, LEASE).jobs().get(0);
		this.listener.getLeaseOperations().ack("images", List.of(first.lease()));
		this.listener.getLeaseOperations().ack("images", List.of(first.lease()));
		assertThat(dispatched).containsExactly("images resize", "images watermark");
		assertThat(chain.stepIds()).hasSize(2);
		succeed("images");
		dispatched.clear();
		// a step behind a running limit, acknowledged as it leaves its gates
		this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("watermark")).build());
		Gates gates = new Gates(null, "resize", 1, 0, null);
		ReservedJob limited = this.listener.reserve("images", 1, LEASE).jobs().get(0);
		assertThat(this.listener.getGateOperations().admit("images", limited.lease(), gates, LEASE)).isZero();
		GateOperations.Completion completion = this.listener.getGateOperations()
			.completeAndLeaveGates("images", limited.lease(), gates, LEASE, 0);
		assertThat(completion.refused()).isFalse();
		assertThat(completion.next()).isNull();
		assertThat(dispatched).containsExactly("images resize", "images watermark");
		succeed("images");
		dispatched.clear();
		// a name with an escape is read from its own field, not from a "job" further on
		this.dispatcher.dispatchChain(ChainRequest
			.of(step("resize"), JobRequest.of(QUOTED, this.jsonMapper.readTree("{\"job\":\"other\"}")).build())
			.build());
		succeed("images");
		assertThat(dispatched).containsExactly("images resize", "images " + QUOTED);
	}

	@Test
	void purgingTheQueueOfAPendingStepEndsTheChainWithoutItsOnFailureJob() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest.of(step("resize"), step("publish"), step("watermark")).onFailure(broken()).build());
		String id = chain.chainId();
		succeed("images");
		handOverAll();
		this.operations.purge("web");
		while (this.listener.migrate("web").handOvers()) {
			handOverAll();
		}
		ChainStatus purged = status(chain);
		assertThat(purged.state()).isEqualTo(State.CANCELLED);
		assertThat(purged.reason()).isEqualTo("step 2 (job " + id + ":2 of queue 'web') was purged with its queue");
		assertThat(purged.steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.CANCELLED, StepState.CANCELLED);
		assertThat(callbacks()).isEmpty();
		assertThat(this.operations.stats("images").ready()).as("the later step is never started").isZero();
	}

	@Test
	void purgingAQueueDropsTheLaterStepsThatItsStepsWouldCreate() {
		ChainResult chain = this.dispatcher
			.dispatchChain(ChainRequest.of(step("resize"), step("watermark"), step("publish")).build());
		String id = chain.chainId();
		this.listener.reserve("images", 1, LEASE);
		this.operations.purge("images");
		while (this.listener.migrate("images").handOvers()) {
			handOverAll();
		}
		assertThat(status(chain).state()).isEqualTo(State.CANCELLED);
		assertThat(status(chain).reason())
			.isEqualTo("step 1 (job " + id + ":1 of queue 'images') was purged with its queue");
		assertThat(this.template.hasKey("redq:{images}:batch-links")).isFalse();
		assertThat(this.operations.stats("images").ready()).isZero();
		assertThat(this.operations.stats("web").ready()).isZero();
	}

	@Test
	void aStepThatDiesEndsTheChainAndItsOnFailureJobRunsOnce() {
		ChainResult chain = this.dispatcher.dispatchChain(acrossQueues().onFailure(broken()).build());
		String id = chain.chainId();
		succeed("images");
		handOverAll();
		kill("web");
		Set<String> handOvers = this.template.opsForZSet().range("redq:{web}:handover", 0, -1);
		handOverAll();
		ChainStatus failed = status(chain);
		assertThat(failed.state()).isEqualTo(State.FAILED);
		assertThat(failed.reason()).isEqualTo("step 2 (job " + id + ":2 of queue 'web') died");
		assertThat(failed.steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.DEAD, StepState.CANCELLED);
		assertThat(callbacks()).containsOnlyKeys(id + ":failure");
		JsonNode headers = this.jsonMapper.readTree((String) callbacks().get(id + ":failure")).get("headers");
		assertThat(headers.get(ChainRequest.CHAIN_HEADER).asString()).isEqualTo(id);
		assertThat(headers.get(ChainRequest.CALLBACK_HEADER).asString()).isEqualTo("failure");
		// the on-failure job runs and completes; then a mover that died before it removed
		// the hand-over and recorded the delivery applies it again
		succeed("callbacks");
		this.template.opsForZSet().add("redq:{web}:handover", handOvers.iterator().next(), 0);
		this.template.opsForHash()
			.put("redq:chain:{" + id + "}:meta", "failure", "callbacks\n" + id + ":failure\nd\n0\n\"job\":\"broken\"}");
		handOverAll();
		assertThat(callbacks()).as("the enqueue of the on-failure job is remembered").isEmpty();
		assertThat(this.operations.stats("images").ready()).as("the last step never starts").isZero();
		assertThat(status(chain).state()).isEqualTo(State.FAILED);
	}

	@Test
	void aStepThatDiesDropsTheStepsItsLinkCarries() {
		ChainResult chain = this.dispatcher
			.dispatchChain(ChainRequest.of(step("resize"), step("watermark"), step("publish")).build());
		kill("images");
		assertThat(this.template.hasKey("redq:{images}:batch-links")).isFalse();
		assertThat(this.operations.stats("images").ready()).isZero();
		handOverAll();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.DEAD, StepState.CANCELLED, StepState.CANCELLED);
	}

	@Test
	void reSentAcksAndReAppliedHandOversStartTheNextStepOnceAndNotTheOneAfter() {
		ChainResult chain = this.dispatcher.dispatchChain(acrossQueues().build());
		String id = chain.chainId();
		ReservedJob first = this.listener.reserve("images", 1, LEASE).jobs().get(0);
		this.listener.getLeaseOperations().ack("images", List.of(first.lease()));
		this.listener.getLeaseOperations().ack("images", List.of(first.lease()));
		Set<String> handOvers = this.template.opsForZSet().range("redq:{images}:handover", 0, -1);
		assertThat(handOvers).hasSize(1);
		handOverAll();
		ReservedJob second = this.listener.reserve("web", 1, LEASE).jobs().get(0);
		assertThat(second.id()).isEqualTo(id + ":2");
		// while step 2 runs, a mover that died before it recorded the delivery of step 2
		// applies the hand-over of step 1 again
		this.template.opsForZSet().add("redq:{images}:handover", handOvers.iterator().next(), 0);
		this.template.opsForHash()
			.put("redq:chain:{" + id + "}:meta", "s2", "web\n" + id + ":2\nd\n0\n\"job\":\"publish\"}");
		handOverAll();
		assertThat(this.operations.stats("web").ready()).as("the enqueue of step 2 is remembered").isZero();
		assertThat(this.operations.stats("images").ready()).as("step 3 waits for step 2").isZero();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.RUNNING, StepState.PENDING);
		this.listener.getLeaseOperations().ack("web", List.of(second.lease()));
		handOverAll();
		assertThat(succeed("images")).isEqualTo(id + ":3");
		handOverAll();
		assertThat(status(chain).state()).isEqualTo(State.SUCCEEDED);
	}

	@Test
	void aStepAcknowledgedLateCountsOnceAndItsNextRunNothing() {
		ChainResult chain = this.dispatcher.dispatchChain(acrossQueues().build());
		ReservedJob first = this.listener.reserve("images", 1, Duration.ofMillis(50)).jobs().get(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listener.migrate("images").expiredLeases() == 1);
		ReservedJob second = this.listener.reserve("images", 1, LEASE).jobs().get(0);
		assertThat(second.id()).isEqualTo(first.id());
		this.listener.getLeaseOperations().ack("images", List.of(second.lease()));
		assertThat(this.listener.getLeaseOperations().ack("images", List.of(first.lease())))
			.as("late, and the job is gone")
			.isEmpty();
		assertThat(this.template.opsForZSet().size("redq:{images}:handover")).isEqualTo(1);
		handOverAll();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.RUNNING, StepState.PENDING);
		assertThat(this.operations.stats("web").ready()).isEqualTo(1);
	}

	@Test
	void cancelRemovesAPendingStepAndNoLaterStepStarts() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest.of(step("resize"), step("watermark"), step("publish")).onFailure(broken()).build());
		assertThat(this.dispatcher.cancelChain(chain.chainId())).isTrue();
		assertThat(this.operations.stats("images").ready()).isZero();
		handOverAll();
		ChainStatus cancelled = status(chain);
		assertThat(cancelled.state()).isEqualTo(State.CANCELLED);
		assertThat(cancelled.reason()).isEqualTo("the chain was cancelled");
		assertThat(cancelled.steps()).extracting(Step::state).containsOnly(StepState.CANCELLED);
		assertThat(callbacks()).as("no step died").isEmpty();
		assertThat(this.dispatcher.cancelChain(chain.chainId())).as("ended").isFalse();
	}

	@Test
	void aReSentCancelStillForestallsTheStepAStalledMoverRead() {
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("publish")).build());
		succeed("images");
		StalledMover mover = StalledMover.applyHandOvers(this.operations.getStore(),
				this.operations.getBatchOperations(), "images");
		// the cancel ends the chain, its reply is lost, and Lettuce re-sends it after a
		// reconnect: the caller sees only the re-sent call's reply
		this.operations.getBatchOperations().chains().run(chain.chainId(), List.of("cancel"));
		assertThat(this.dispatcher.cancelChain(chain.chainId())).as("a running chain was cancelled before").isFalse();
		while (mover.stalled()) {
			mover.goOn();
		}
		handOverAll();
		assertThat(this.operations.stats("web").pending()).as("the step the mover read is never enqueued").isZero();
		assertThat(status(chain).state()).isEqualTo(State.CANCELLED);
	}

	@Test
	void cancelLetsARunningStepFinishAndNoLaterStepStartsInAnyQueue() {
		ChainResult chain = this.dispatcher
			.dispatchChain(ChainRequest.of(step("resize"), step("watermark"), step("resize"), step("publish")).build());
		ReservedJob running = this.listener.reserve("images", 1, LEASE).jobs().get(0);
		assertThat(this.dispatcher.cancelChain(chain.chainId())).isTrue();
		handOverAll();
		assertThat(status(chain).state()).isEqualTo(State.RUNNING);
		this.listener.getLeaseOperations().ack("images", List.of(running.lease()));
		assertThat(this.operations.stats("images").ready()).as("its link no longer carries the next step").isZero();
		handOverAll();
		assertThat(status(chain).state()).isEqualTo(State.CANCELLED);
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.CANCELLED, StepState.CANCELLED, StepState.CANCELLED);
		assertThat(this.operations.stats("web").ready()).isZero();
	}

	@Test
	void cancelAfterAMoverEnqueuedTheCurrentStepAndDiedBeforeItRecordedTheDeliveryCancelsThatStep() {
		ChainResult chain = this.dispatcher
			.dispatchChain(ChainRequest.of(step("resize"), step("publish"), step("publish")).build());
		String meta = "redq:chain:{" + chain.chainId() + "}:meta";
		Object job = this.template.opsForHash().get(meta, "s2");
		succeed("images");
		handOverAll();
		assertThat(this.operations.stats("web").ready()).isEqualTo(1);
		// the mover that enqueued step 2 died before it recorded the delivery
		this.template.opsForHash().put(meta, "s2", job);
		assertThat(this.dispatcher.cancelChain(chain.chainId())).isTrue();
		assertThat(status(chain).state()).isEqualTo(State.CANCELLED);
		assertThat(this.operations.stats("web").ready()).as("step 2 never runs, so never creates step 3").isZero();
		handOverAll();
		assertThat(status(chain).steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.CANCELLED, StepState.CANCELLED);
	}

	@Test
	void aFirstStepThatFinishesBeforeTheChainIsOpenedMovesItOnWhenItOpens() {
		ChainOperations chains = new ChainOperations(this.operations.getStore());
		PreparedJob first = this.dispatcher.prepare(JobRequest.of("resize", "i").id("c1:1").build());
		PreparedJob second = this.dispatcher.prepare(JobRequest.of("publish", "i").id("c1:2").build());
		String link = chains.create(
				new ChainCommand("c1", Duration.ofMinutes(1),
						List.of(new PreparedCommand("images", first.command()),
								new PreparedCommand("web", second.command())),
						null),
				ChainOperations.CREATION_WINDOW, null);
		this.enqueuer.enqueue("images", List.of(first.command()), null, link);
		succeed("images");
		handOverAll();
		assertThat(this.dispatcher.findChain("c1").orElseThrow().state()).isEqualTo(State.CREATING);
		assertThat(this.template.getExpire("redq:chain:{c1}:meta")).as("expires unless opened").isPositive();
		assertThat(this.operations.stats("web").ready()).isZero();
		chains.open("c1");
		assertThat(this.dispatcher.findChain("c1").orElseThrow().steps()).extracting(Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.RUNNING);
		assertThat(succeed("web")).isEqualTo("c1:2");
	}

	@Test
	void anEndedChainLingersThenExpires() {
		this.dispatcher.setBatchLinger(Duration.ofMinutes(5));
		ChainResult chain = this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("publish")).build());
		String meta = "redq:chain:{" + chain.chainId() + "}:meta";
		assertThat(this.template.getExpire(meta)).as("no expiry while it runs").isEqualTo(-1);
		succeed("images");
		handOverAll();
		succeed("web");
		handOverAll();
		assertThat(this.template.getExpire(meta)).isBetween(200L, 300L);
		this.template.delete(meta);
		assertThat(this.dispatcher.findChain(chain.chainId())).isEmpty();
	}

	@Test
	void badChainsAreRefusedAtTheCallWithWhatToDo() {
		assertThatIllegalArgumentException().isThrownBy(() -> ChainRequest.of(step("resize")))
			.withMessageContaining("at least two steps");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ChainRequest.of(step("resize"), JobRequest.of("publish", "p").id("mine").build()))
			.withMessageContaining("Chain step 'publish' has the id 'mine'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher.dispatchChain(ChainRequest.of(step("resize"), step("nope")).build()))
			.withMessageContaining("No job named 'nope'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher
				.dispatchChain(ChainRequest.of(step("resize"), step("publish")).onFailure(step("nope")).build()))
			.withMessageContaining("No job named 'nope'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ChainRequest.of(step("resize"), step("publish"))
				.onFailure(JobRequest.of("broken", "b").id("x").build()))
			.withMessageContaining("on-failure callback 'broken' has the id 'x'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ChainRequest.of(step("resize"), step("publish")).onFailure(null))
			.withMessageContaining("must be a JobRequest");
		assertThat(this.template.keys("redq:*")).as("nothing sent").isEmpty();
	}

	/** A chain whose every step is in another queue than the one before. */
	private static ChainRequest.Builder acrossQueues() {
		return ChainRequest.of(step("resize"), step("publish"), step("watermark"));
	}

	private static JobRequest step(String jobName) {
		return JobRequest.of(jobName, "image-1").build();
	}

	private static JobRequest broken() {
		return JobRequest.of("broken", "image-1").build();
	}

	private ChainStatus status(ChainResult chain) {
		return this.dispatcher.findChain(chain.chainId()).orElseThrow();
	}

	private String succeed(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().ack(queue, List.of(job.lease()))).isEmpty();
		return job.id();
	}

	private String kill(String queue) {
		ReservedJob job = this.listener.reserve(queue, 1, LEASE).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().fail(queue, job.lease(), "boom", null)).isTrue();
		assertThat(this.operations.stats(queue).dead()).isPositive();
		return job.id();
	}

	/** What the migrators of the steps' queues do. */
	private void handOverAll() {
		for (String queue : List.of("images", "web")) {
			this.listener.handOver(queue);
		}
	}

	/** The on-failure jobs enqueued: id to envelope. */
	private Map<Object, Object> callbacks() {
		return this.template.opsForHash().entries("redq:{callbacks}:jobs");
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class);
	}

}
