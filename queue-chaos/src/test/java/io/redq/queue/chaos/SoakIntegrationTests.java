package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 5, scenario 10: three worker JVMs, 200,000 jobs, a random kill -9 or SIGSTOP
 * every few seconds for 60 s. Long, so it runs only with {@code -Dredq.chaos.soak=true}.
 */
@EnabledIfSystemProperty(named = "redq.chaos.soak", matches = "true")
class SoakIntegrationTests extends ChaosSupport {

	private static final int JOBS = Integer.getInteger("redq.chaos.soak.jobs", 200_000);

	private static final Duration FAULTS_FOR = Duration.ofSeconds(60);

	@Test
	void invariantsHoldUnderRandomKillsAndStalls() {
		startRedis();
		// a kill -9 of a worker keeps what it wrote in the page cache: no fsync needed;
		// 10 ms
		// handlers on 48 slots spread the 200,000 jobs over about the 60 s of faults
		String[] arguments = { "--chaos.handler-millis=10", "--chaos.ledger-fsync=false",
				"--redq.listener.concurrency=16", "--redq.listener.batch-size=16" };
		List<WorkerProcess> alive = new ArrayList<>(startWorkers(3, arguments));
		long dispatchStart = System.nanoTime();
		List<String> ids = dispatch(JOBS, ChaosTask.standard(), 10);
		report("dispatched " + ids.size() + " jobs in " + millisSince(dispatchStart) + " ms");
		long start = System.nanoTime();
		long startMillis = System.currentTimeMillis();
		List<Long> faultTimes = new ArrayList<>();
		Random random = new Random(42);
		Map<Long, Long> faultedUntil = new HashMap<>();
		int kills = 0;
		int stalls = 0;
		while (millisSince(start) < FAULTS_FOR.toMillis()) {
			sleep(2000 + random.nextInt(2000));
			WorkerProcess victim = alive.get(random.nextInt(alive.size()));
			faultTimes.add(System.currentTimeMillis());
			if (random.nextBoolean()) {
				victim.signal("KILL");
				victim.awaitExit(10);
				faultedUntil.put(victim.pid(), System.currentTimeMillis());
				alive.remove(victim);
				alive.add(launchWorker(arguments));
				kills++;
			}
			else {
				long stall = 500 + random.nextInt(2500);
				victim.signal("STOP");
				sleep(stall);
				victim.signal("CONT");
				faultedUntil.merge(victim.pid(), System.currentTimeMillis(), Math::max);
				stalls++;
			}
		}
		long faultsEnded = System.nanoTime();
		awaitDrained(Duration.ofMinutes(10));
		long drainMillis = millisSince(faultsEnded);
		Set<String> allowed = new LinkedHashSet<>();
		List<LedgerEntry> entries = entries();
		long lastFinish = entries.stream().filter(LedgerEntry::finished).mapToLong(LedgerEntry::time).max().orElse(0);
		long faultsWhileBusy = faultTimes.stream().filter((time) -> time <= lastFinish).count();
		for (LedgerEntry entry : entries) {
			Long until = faultedUntil.get(entry.pid());
			if (entry.is("START") && until != null && entry.time() <= until) {
				allowed.add(entry.id());
			}
		}
		report("soak: " + kills + " kill -9, " + stalls + " SIGSTOP over " + FAULTS_FOR.toSeconds() + " s, "
				+ faultsWhileBusy + " of them while jobs were pending; the last job finished "
				+ (lastFinish - startMillis) + " ms after dispatch ended; drained " + drainMillis
				+ " ms after the faults ended");
		checkInvariants(ids, allowed);
	}

}
