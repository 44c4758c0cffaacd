package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.JobRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults of worker JVMs in the middle of chains: a kill -9 while steps run and while
 * their hand-overs wait for a migrator pass.
 */
class ChainFaultsIntegrationTests extends ChaosSupport {

	private static final int CHAINS = 100;

	private static final int STEPS = 3;

	@Test // issue 37
	void killedWorkerLeavesEveryChainToSucceedWithEachStepAfterItsPredecessorsSuccess() {
		startRedis();
		List<WorkerProcess> workers = startWorkers(2);
		WorkerProcess victim = workers.get(0);
		List<String> chainIds = new ArrayList<>();
		for (int i = 0; i < CHAINS; i++) {
			List<JobRequest> steps = new ArrayList<>();
			for (int step = 0; step < STEPS; step++) {
				steps.add(JobRequest.of(ChaosTask.JOB_NAME, ChaosTask.standard()).maxAttempts(5).build());
			}
			chainIds.add(this.dispatcher.dispatchChain(ChainRequest.of(steps).build()).chainId());
		}
		// in the middle: first steps done, later steps running or waiting for their
		// hand-over
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 30, Duration.ofSeconds(30));
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();

		await().atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> chainIds.stream()
				.allMatch((id) -> this.dispatcher.findChain(id).orElseThrow().state() == ChainStatus.State.SUCCEEDED));
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

}
