package io.redq.queue.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of worker JVMs: kill -9, SIGSTOP past the lease, SIGTERM, long handlers, and a
 * poison job that halts the JVM.
 */
class WorkerFaultsIntegrationTests extends ChaosSupport {

	@Test // issue 5, scenario 1
	void killedWorkersJobsAreRedeliveredWithinTheLeasePlusOneSecond() {
		startRedis();
		List<WorkerProcess> workers = startWorkers(2);
		WorkerProcess victim = workers.get(0);
		WorkerProcess survivor = workers.get(1);
		List<String> ids = dispatch(300, ChaosTask.standard(), 3);
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 20, Duration.ofSeconds(30));

		long killedAt = System.currentTimeMillis();
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();
		Set<String> victimStarted = startedBy(List.of(victim), Long.MAX_VALUE);
		Set<String> victimFinished = victim.ledger()
			.stream()
			.filter(LedgerEntry::finished)
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		Set<String> inFlight = victimStarted.stream()
			.filter((id) -> !victimFinished.contains(id))
			.collect(Collectors.toSet());
		assertThat(inFlight).as("jobs the victim was running when killed").isNotEmpty();

		awaitDrained(Duration.ofSeconds(30));
		Map<String, Long> redelivered = survivor.ledger()
			.stream()
			.filter((entry) -> entry.is("START") && victimStarted.contains(entry.id()))
			.collect(Collectors.toMap(LedgerEntry::id, LedgerEntry::time, Math::min));
		assertThat(redelivered.keySet()).as("in-flight jobs of the killed worker, redelivered").containsAll(inFlight);
		long slowest = redelivered.values().stream().mapToLong((time) -> time - killedAt).max().orElseThrow();
		report("kill -9 with " + inFlight.size() + " jobs in flight (" + redelivered.size()
				+ " redelivered incl. done but unacked): slowest redelivery " + slowest + " ms after the kill (lease "
				+ LEASE.toMillis() + " ms)");
		assertThat(slowest).isLessThanOrEqualTo(LEASE.toMillis() + 1000);
		checkInvariants(ids, victimStarted);
	}

}
