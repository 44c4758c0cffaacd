package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.RedisJobDispatcher;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults of worker JVMs in the middle of chains: a kill -9 while steps run, and, across
 * queues, while their hand-overs wait for a migrator pass or are applied.
 */
class ChainFaultsIntegrationTests extends ChaosSupport {

	private static final int CHAINS = 100;

	private static final int STEPS = 3;

	/** How many chains with a batch step, and as many batches of chains. */
	private static final int NESTED = 20;

	@Test // issue 37
	void killedWorkerLeavesEveryChainInOneQueueToSucceedWithEachStepAfterItsPredecessorsSuccess() {
		startRedis();
		List<WorkerProcess> workers = startWorkers(2);
		// each step created by the acknowledgement of the step before
		killInTheMiddle(workers.get(0), this.dispatcher, (step) -> ChaosTask.JOB_NAME);
	}

	@Test // issue 37
	void killedWorkerLeavesEveryChainAcrossQueuesToSucceedWithEachStepAfterItsPredecessorsSuccess() {
		startRedis();
		List<WorkerProcess> workers = startWorkers(2, "--chaos.other-queue=true");
		// each step enqueued by a migrator through the hand-over of the step before,
		// which
		// the kill may catch between its two steps
		killInTheMiddle(workers.get(0), acrossQueues(),
				(step) -> (step % 2 == 0) ? ChaosTask.JOB_NAME : OtherQueueJobs.JOB_NAME);
		assertThat(this.operations.stats(OtherQueueJobs.QUEUE).dead()).isZero();
	}

	@Test // issue 37
	void killBetweenTheTwoStepsOfACrossSlotHandOverStartsTheNextStepAndTheCallbackOnce() {
		startRedis();
		RedisJobDispatcher dispatcher = acrossQueues();
		String chainId = dispatcher
			.dispatchChain(
					ChainRequest
						.of(JobRequest.of(ChaosTask.JOB_NAME, ChaosTask.standard()).build(),
								JobRequest.of(OtherQueueJobs.JOB_NAME, ChaosTask.standard()).build())
						.build())
			.chainId();
		String batchId = dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of(ChaosTask.JOB_NAME, ChaosTask.standard()).build()))
				.onComplete(JobRequest.of(OtherQueueJobs.JOB_NAME, ChaosTask.standard()).build())
				.build())
			.batchId();
		// a worker without a migrator acknowledges both: each hand-over is recorded in
		// the queue's slot, and the worker is killed before any is applied
		WorkerProcess victim = launchWorker("--redq.listener.auto-startup=false",
				"--chaos.ack-and-wait=" + ChaosTask.QUEUE);
		awaitEntries((entry) -> entry.is("ACKED"), 2, Duration.ofSeconds(60));
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();
		assertThat(this.operations.getStore()
			.getTemplate()
			.opsForZSet()
			.size(this.operations.getStore().keys(ChaosTask.QUEUE).handover())).isEqualTo(2);
		assertThat(dispatcher.findChain(chainId).orElseThrow().steps().get(1).state())
			.isEqualTo(ChainStatus.StepState.PENDING);
		assertThat(dispatcher.findBatch(batchId).orElseThrow().state()).isEqualTo(BatchStatus.State.RUNNING);
		assertThat(this.operations.stats(OtherQueueJobs.QUEUE).ready()).isZero();

		// another instance's migrator applies the hand-overs
		startWorkers(1, "--chaos.other-queue=true");
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> dispatcher.findChain(chainId).orElseThrow().state() == ChainStatus.State.SUCCEEDED
					&& entries((entry) -> entry.is("DONE") && entry.id().equals(batchId + ":complete")).size() == 1);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> List.of(ChaosTask.QUEUE, OtherQueueJobs.QUEUE)
				.stream()
				.map(this.operations::stats)
				.allMatch((stats) -> stats.ready() + stats.delayed() + stats.reserved() == 0));
		for (String id : List.of(chainId + ":2", batchId + ":complete")) {
			assertThat(entries((entry) -> entry.is("START") && entry.id().equals(id))).as("starts of %s", id)
				.hasSize(1);
		}
		assertThat(dispatcher.findBatch(batchId).orElseThrow().state()).isEqualTo(BatchStatus.State.SUCCEEDED);
		report("kill -9 between the two steps of cross-slot hand-overs (recorded, not applied): the next step of the "
				+ "chain and the batch's callback each started once, by another instance's migrator");
	}

	@Test // issue 37
	void killedWorkerInTheMiddleOfNestedHandOversAcrossQueuesRunsEachStepAfterItsPredecessorAndEachCallbackOnce() {
		startRedis();
		WorkerProcess victim = startWorkers(2, "--chaos.other-queue=true").get(0);
		RedisJobDispatcher dispatcher = acrossQueues();
		// chains with a batch step, and batches of chains, each hand-over across queues
		List<String> chainIds = new ArrayList<>();
		List<BatchResult> batches = new ArrayList<>();
		for (int i = 0; i < NESTED; i++) {
			chainIds.add(
					dispatcher
						.dispatchChain(ChainRequest.builder()
							.step(task(ChaosTask.JOB_NAME))
							.step(BatchRequest.of(List.of(task(OtherQueueJobs.JOB_NAME), task(ChaosTask.JOB_NAME)))
								.build())
							.step(task(OtherQueueJobs.JOB_NAME))
							.build())
						.chainId());
			batches.add(dispatcher.dispatchBatch(BatchRequest.builder()
				.chain(ChainRequest.of(task(ChaosTask.JOB_NAME), task(OtherQueueJobs.JOB_NAME)).build())
				.chain(ChainRequest.of(task(OtherQueueJobs.JOB_NAME), task(ChaosTask.JOB_NAME)).build())
				.onSuccess(task(OtherQueueJobs.JOB_NAME))
				.onComplete(task(ChaosTask.JOB_NAME))
				.build()));
		}
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 20, Duration.ofSeconds(60));
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();

		await().atMost(Duration.ofSeconds(120))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> chainIds.stream()
				.allMatch((id) -> dispatcher.findChain(id).orElseThrow().state() == ChainStatus.State.SUCCEEDED)
					&& batches.stream()
						.allMatch((batch) -> dispatcher.findBatch(batch.batchId())
							.orElseThrow()
							.state() == BatchStatus.State.SUCCEEDED));
		await().atMost(Duration.ofSeconds(60))
			.until(() -> List.of(ChaosTask.QUEUE, OtherQueueJobs.QUEUE)
				.stream()
				.map(this.operations::stats)
				.allMatch((stats) -> stats.ready() + stats.delayed() + stats.reserved() == 0));
		List<LedgerEntry> entries = entries();
		Map<String, Long> firstStart = entries.stream()
			.filter((entry) -> entry.is("START"))
			.collect(Collectors.toMap(LedgerEntry::id, LedgerEntry::time, Math::min));
		Map<String, Long> firstDone = entries.stream()
			.filter((entry) -> entry.is("DONE"))
			.collect(Collectors.toMap(LedgerEntry::id, LedgerEntry::time, Math::min));
		for (String chainId : chainIds) {
			List<String> members = this.operations.getBatchOperations()
				.memberResults(chainId + ":2", String.class, 0, 10)
				.stream()
				.map((result) -> result.member().id())
				.toList();
			assertThat(members).as("the members of the batch step of %s", chainId).hasSize(2);
			assertAfter(firstStart, firstDone, members, List.of(chainId + ":1"));
			assertAfter(firstStart, firstDone, List.of(chainId + ":3"), members);
		}
		for (BatchResult batch : batches) {
			List<String> lastSteps = new ArrayList<>();
			for (DispatchResult member : batch.members()) {
				assertAfter(firstStart, firstDone, List.of(member.id() + ":2"), List.of(member.id() + ":1"));
				lastSteps.add(member.id() + ":2");
			}
			List<String> callbacks = List.of(batch.batchId() + ":success", batch.batchId() + ":complete");
			assertAfter(firstStart, firstDone, callbacks, lastSteps);
			for (String callback : callbacks) {
				// enqueued once: started at most once by each worker, the survivors'
				// start
				// being a run again of the killed worker's
				for (boolean killed : List.of(true, false)) {
					assertThat(entries.stream()
						.filter((entry) -> entry.is("START") && entry.id().equals(callback)
								&& (entry.pid() == victim.pid()) == killed))
						.as("starts of %s by the %s worker", callback, killed ? "killed" : "surviving")
						.hasSizeLessThanOrEqualTo(1);
				}
			}
		}
		assertThat(this.operations.stats(ChaosTask.QUEUE).dead() + this.operations.stats(OtherQueueJobs.QUEUE).dead())
			.isZero();
		report("kill -9 of one of two workers in the middle of " + NESTED + " chains with a batch step and " + NESTED
				+ " batches of two chains, across queues: each step and member started after its predecessors' "
				+ "success, each callback once");
	}

	/**
	 * Every job of {@code later} first started after each of {@code before} first ended.
	 */
	private static void assertAfter(Map<String, Long> firstStart, Map<String, Long> firstDone, List<String> later,
			List<String> before) {
		for (String id : before) {
			assertThat(firstDone).as("%s ran to its end", id).containsKey(id);
		}
		long after = before.stream().mapToLong(firstDone::get).max().orElseThrow();
		for (String id : later) {
			assertThat(firstStart).as("%s started", id).containsKey(id);
			assertThat(firstStart.get(id)).as("%s started after the success of %s", id, before)
				.isGreaterThanOrEqualTo(after);
		}
	}

	private static JobRequest task(String jobName) {
		return JobRequest.of(jobName, ChaosTask.standard()).maxAttempts(5).build();
	}

	private void killInTheMiddle(WorkerProcess victim, JobDispatcher dispatcher, IntFunction<String> jobOfStep) {
		List<String> chainIds = new ArrayList<>();
		for (int i = 0; i < CHAINS; i++) {
			List<JobRequest> steps = new ArrayList<>();
			for (int step = 0; step < STEPS; step++) {
				steps.add(JobRequest.of(jobOfStep.apply(step), ChaosTask.standard()).maxAttempts(5).build());
			}
			chainIds.add(dispatcher.dispatchChain(ChainRequest.of(steps).build()).chainId());
		}
		// in the middle: first steps done, later steps running or waiting for their
		// hand-over
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 30, Duration.ofSeconds(30));
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();

		await().atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> chainIds.stream()
				.allMatch((id) -> dispatcher.findChain(id).orElseThrow().state() == ChainStatus.State.SUCCEEDED));
		List<LedgerEntry> entries = entries();
		Map<String, Long> firstStart = entries.stream()
			.filter((entry) -> entry.is("START"))
			.collect(Collectors.toMap(LedgerEntry::id, LedgerEntry::time, Math::min));
		Map<String, Long> firstDone = entries.stream()
			.filter((entry) -> entry.is("DONE"))
			.collect(Collectors.toMap(LedgerEntry::id, LedgerEntry::time, Math::min));
		for (String chainId : chainIds) {
			for (int step = 1; step <= STEPS; step++) {
				String id = chainId + ":" + step;
				assertThat(firstDone).as("step %s ran to its end", id).containsKey(id);
				if (step > 1) {
					assertThat(firstStart.get(id)).as("step %s started after its predecessor's success", id)
						.isGreaterThanOrEqualTo(firstDone.get(chainId + ":" + (step - 1)));
				}
			}
		}
		long victimStarts = victim.ledger().stream().filter((entry) -> entry.is("START")).count();
		report("kill -9 of one of two workers after " + victimStarts + " step starts of " + CHAINS + " chains of "
				+ STEPS + " steps: every chain succeeded, each step after its predecessor's success");
		assertThat(stats().dead()).isZero();
	}

	/** A dispatcher of the test's that knows the jobs of both queues. */
	private RedisJobDispatcher acrossQueues() {
		List<JobDefinition> definitions = List.of(job(ChaosTask.JOB_NAME, ChaosTask.QUEUE),
				job(OtherQueueJobs.JOB_NAME, OtherQueueJobs.QUEUE));
		return new RedisJobDispatcher(this.operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return definitions.stream()
					.filter((definition) -> definition.name().equals(name))
					.findFirst()
					.orElse(null);
			}

			@Override
			public Collection<JobDefinition> all() {
				return definitions;
			}

		}, JsonMapper.shared());
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 3, Duration.ZERO, JobBackoff.DEFAULT, ChaosTask.class);
	}

}
