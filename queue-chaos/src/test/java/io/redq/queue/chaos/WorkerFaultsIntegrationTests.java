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
		List<WorkerProcess> workers = startRedisAndTwoWorkers();
		WorkerProcess victim = workers.get(0);
		WorkerProcess survivor = workers.get(1);
		// enough jobs that the queue cannot drain between the 20th one done and the kill
		List<String> ids = dispatch(1000, ChaosTask.standard(), 3);
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 20, Duration.ofSeconds(30));
		// killed while it runs a job: between one job's end and the next one's start (a
		// moment that a loaded machine stretches) it runs none
		long running = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (running(victim).isEmpty()) {
			assertThat(System.nanoTime()).as("waiting for the victim to run a job").isLessThan(running);
			sleep(1);
		}

		long killedAt = System.currentTimeMillis();
		victim.signal("KILL");
		assertThat(victim.awaitExit(10)).isTrue();
		Set<String> victimStarted = startedBy(List.of(victim), Long.MAX_VALUE);
		Set<String> inFlight = running(victim);
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

	@Test // issue 5, scenario 2
	void stalledWorkersLateAcksAreRefusedAndTheRedeliveredCopiesComplete() {
		List<WorkerProcess> workers = startRedisAndTwoWorkers();
		WorkerProcess victim = workers.get(0);
		WorkerProcess survivor = workers.get(1);
		List<String> ids = dispatch(24, new ChaosTask(1500, false), 3);
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("START"), 4, Duration.ofSeconds(30));
		sleep(300);

		long stoppedAt = System.currentTimeMillis();
		victim.signal("STOP");
		sleep(3 * LEASE.toMillis());
		victim.signal("CONT");
		Set<String> victimFinishedBefore = victim.ledger()
			.stream()
			.filter((entry) -> entry.finished() && entry.time() <= stoppedAt)
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		Set<String> stalled = startedBy(List.of(victim), stoppedAt).stream()
			.filter((id) -> !victimFinishedBefore.contains(id))
			.collect(Collectors.toSet());
		assertThat(stalled).as("jobs the victim was running when stopped").isNotEmpty();

		awaitDrained(Duration.ofSeconds(40));
		Set<String> survivorDone = survivor.ledger()
			.stream()
			.filter((entry) -> entry.is("DONE"))
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		assertThat(survivorDone).as("redelivered copies completed by the other worker").containsAll(stalled);
		long learned = victim.ledger()
			.stream()
			.filter((entry) -> entry.is("LOST") && stalled.contains(entry.id()))
			.count();
		long refused = refusals(victim);
		report("SIGSTOP for " + 3 * LEASE.toMillis() + " ms with " + stalled.size() + " jobs running: " + refused
				+ " stale tokens refused, " + learned + " handlers learned the lease was lost");
		assertThat(refused).as("stale lease tokens refused").isPositive();
		assertThat(learned).as("handlers that learned their lease was lost").isPositive();
		checkInvariants(ids, startedBy(List.of(victim), stoppedAt));
	}

	@Test // issue 26, item 1
	void stalledWorkersLateResultsAreAcceptedUnlessTheirJobWasReservedAgain() {
		startRedis();
		WorkerProcess victim = startWorkers(1).get(0);
		// as many jobs as the worker runs at once: it starts no copy of a job before one
		// of its handlers finishes
		List<String> ids = dispatch(4, new ChaosTask(1500, false), 3);
		awaitEntries((entry) -> entry.is("START"), ids.size(), Duration.ofSeconds(30));
		sleep(300);
		victim.signal("STOP");
		sleep(3 * LEASE.toMillis());
		victim.signal("CONT");
		awaitDrained(Duration.ofSeconds(30));
		int accepted = 0;
		for (String id : ids) {
			long starts = entries((entry) -> entry.is("START") && entry.id().equals(id)).size();
			long refused = victim.countLog("Late acknowledgement of job " + id + " refused");
			// refused only when the job was reserved again since, and so ran again
			assertThat(starts).as("runs of %s, whose late result was refused %d time(s)", id, refused)
				.isEqualTo(1 + refused);
			accepted += (refused == 0) ? 1 : 0;
		}
		report("SIGSTOP for " + 3 * LEASE.toMillis() + " ms of the only worker with " + ids.size() + " jobs running: "
				+ accepted + " late results accepted, " + (ids.size() - accepted)
				+ " refused after the job was reserved again");
		assertThat(accepted).as("late results accepted").isPositive();
		checkInvariants(ids, Set.copyOf(ids));
	}

	@Test // issue 5, scenario 3
	void handlerRunningFiveTimesItsLeaseIsNotRedelivered() {
		List<WorkerProcess> workers = startRedisAndTwoWorkers();
		List<String> ids = dispatch(4, new ChaosTask(5 * LEASE.toMillis(), false), 3);
		awaitDrained(Duration.ofSeconds(30));
		assertThat(entries((entry) -> entry.is("START"))).hasSize(ids.size());
		assertThat(entries((entry) -> entry.is("DONE"))).hasSize(ids.size());
		assertThat(entries((entry) -> entry.is("LOST"))).isEmpty();
		assertThat(workers).allSatisfy((worker) -> assertThat(refusals(worker)).isZero());
		checkInvariants(ids, Set.of());
	}

	@Test // issue 5, scenario 4
	void sigtermStopsGracefullyWithoutWaitingForALease() {
		List<WorkerProcess> workers = startRedisAndTwoWorkers();
		WorkerProcess victim = workers.get(0);
		List<String> ids = dispatch(300, ChaosTask.standard(), 3);
		awaitEntries((entry) -> entry.pid() == victim.pid() && entry.is("DONE"), 20, Duration.ofSeconds(30));

		long termAt = System.nanoTime();
		victim.signal("TERM");
		assertThat(victim.awaitExit(20)).as("worker exits after SIGTERM").isTrue();
		long stopMillis = millisSince(termAt);
		Set<String> reservedAfterExit = this.operations.getStore()
			.getTemplate()
			.opsForZSet()
			.rangeByScore(this.operations.getStore().keys(QUEUE).reserved(), Double.NEGATIVE_INFINITY,
					Double.MAX_VALUE);
		// read after the reserved set: a job the other worker finished but has not
		// acknowledged yet is in both
		Set<String> finishedByOther = workers.get(1)
			.ledger()
			.stream()
			.filter(LedgerEntry::finished)
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		Set<String> victimFinished = victim.ledger()
			.stream()
			.filter(LedgerEntry::finished)
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		assertThat(startedBy(List.of(victim), Long.MAX_VALUE)).as("jobs the stopping worker started and finished")
			.isSubsetOf(victimFinished);
		// the other worker runs at most its concurrency; nothing of the stopped worker is
		// left to expire
		assertThat(reservedAfterExit).filteredOn((id) -> !finishedByOther.contains(id)).hasSizeLessThanOrEqualTo(4);

		awaitDrained(Duration.ofSeconds(30));
		// a lease that expired after a renewal confirmed its run would show as a second
		// attempt
		assertThat(entries((entry) -> entry.is("START") && entry.attempt() != 1)).isEmpty();
		report("SIGTERM: worker exited with " + victim.process().exitValue() + " after " + stopMillis + " ms, "
				+ victimFinished.size() + " jobs done there, " + reservedAfterExit.size() + " reserved right after");
		checkInvariants(ids, Set.of());
	}

	@Test // issue 5, scenario 9
	void poisonJobThatHaltsTheWorkerEndsInDeadAfterMaxStallsAndMaxAttempts() {
		startRedis();
		launchWorker();
		List<String> ids = new java.util.ArrayList<>(dispatch(30, ChaosTask.standard(), 10));
		String poison = dispatch(1, new ChaosTask(0, true), 3).get(0);
		ids.add(poison);
		String deadKey = this.operations.getStore().keys(QUEUE).dead();
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		int crashes = 0;
		while (this.operations.getStore().getTemplate().opsForZSet().score(deadKey, poison) == null) {
			assertThat(System.nanoTime()).as("poison job dead in time").isLessThan(deadline);
			WorkerProcess current = this.workers.get(this.workers.size() - 1);
			if (!current.process().isAlive()) {
				if (current.ledger().stream().anyMatch((entry) -> entry.is("START") && entry.id().equals(poison))) {
					assertThat(current.process().exitValue()).isEqualTo(1);
					crashes++;
				}
				launchWorker();
			}
			sleep(100);
		}
		awaitDrained(Duration.ofSeconds(30));
		Object error = this.operations.getStore()
			.getTemplate()
			.opsForHash()
			.get(this.operations.getStore().keys(QUEUE).errors(), poison);
		long poisonStarts = entries((entry) -> entry.is("START") && entry.id().equals(poison)).size();
		report("poison job: " + poisonStarts + " attempts, " + crashes + " worker crashes, dead with \"" + error
				+ "\"");
		// it halts its worker at once, before a renewal confirmed its run (unless one
		// came
		// in the few ms between the worker taking it and the halt): the first such expiry
		// is a stall (redq.listener.max-stalls=1) that gives its attempt back, each later
		// one uses an attempt, as does each expiry of a confirmed run
		assertThat(poisonStarts).isBetween(3L, 4L);
		assertThat(crashes).isEqualTo((int) poisonStarts);
		assertThat(String.valueOf(error)).containsAnyOf("Lease expired on attempt 3",
				"Stalled before its run was confirmed on attempt 3, past the 1");
		List<WorkerProcess> crashed = this.workers.stream().filter((worker) -> !worker.process().isAlive()).toList();
		Invariants.Outcome outcome = checkInvariants(ids, startedBy(crashed, Long.MAX_VALUE));
		assertThat(outcome.dead()).isEqualTo(1);
	}

	/** Start Redis and two workers: in most scenarios one is the victim of the fault. */
	private List<WorkerProcess> startRedisAndTwoWorkers() {
		startRedis();
		return startWorkers(2);
	}

	/** The jobs a worker's ledger shows started and not finished. */
	private Set<String> running(WorkerProcess worker) {
		Set<String> finished = worker.ledger()
			.stream()
			.filter(LedgerEntry::finished)
			.map(LedgerEntry::id)
			.collect(Collectors.toSet());
		return startedBy(List.of(worker), Long.MAX_VALUE).stream()
			.filter((id) -> !finished.contains(id))
			.collect(Collectors.toSet());
	}

}
