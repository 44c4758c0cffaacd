package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.RedisJobDispatcher;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Network faults between Redis and its clients, injected by a {@link ChaosProxy}: resets,
 * replies lost after Redis executed the command, and a blackhole.
 */
class ProxyFaultsIntegrationTests extends ChaosSupport {

	private static final Pattern LATE_ACK = Pattern.compile("Late acknowledgement of job (\\S+) refused");

	@Test // issue 5, scenario 8: enqueue
	void lostRepliesAndResetsDuringDispatchAreReportedNeverSilentlyLost() {
		ChaosProxy proxy = startRedisBehindProxy();
		RedisJobDispatcher flaky = dispatcherVia(proxy.port(), Duration.ofSeconds(2));
		startWorkers(2);
		List<String> ids = new ArrayList<>();
		Set<String> retried = new HashSet<>();
		int errors = 0;
		int storedDespiteError = 0;
		for (int i = 0; i < 40; i++) {
			String id = "job-" + i;
			if (i % 2 == 0) {
				proxy.dropNextReply();
			}
			else if (i % 4 == 1) {
				proxy.resetAll();
			}
			JobRequest request = JobRequest.of(ChaosTask.JOB_NAME, new ChaosTask(200, false))
				.id(id, DuplicatePolicy.KEEP)
				.maxAttempts(3)
				.build();
			boolean acknowledged = false;
			for (int attempt = 0; attempt < 5 && !acknowledged; attempt++) {
				try {
					assertThat(flaky.dispatch(request).id()).isEqualTo(id);
					acknowledged = true;
				}
				catch (RuntimeException ex) {
					// reported: the job may or may not be stored; retry with the same id
					errors++;
					if (attempt == 0 && this.operations.getStore()
						.getTemplate()
						.opsForHash()
						.hasKey(this.operations.getStore().keys(QUEUE).jobs(), id)) {
						storedDespiteError++;
					}
					retried.add(id);
				}
			}
			assertThat(acknowledged).as("dispatch of %s acknowledged after retries", id).isTrue();
			ids.add(id);
		}
		awaitDrained(Duration.ofSeconds(30));
		report("dispatch through a proxy: " + proxy.droppedReplies() + " replies dropped, " + proxy.resets()
				+ " resets, " + errors + " dispatch errors reported (" + storedDespiteError
				+ " of those jobs were stored anyway), " + retried.size() + " ids retried with KEEP");
		assertThat(proxy.droppedReplies()).as("the fault happened").isPositive();
		Invariants.Outcome outcome = checkInvariants(ids, retried);
		assertThat(outcome.completed()).isEqualTo(ids.size());
	}

	@Test // issue 5, scenario 8: ack
	void lostAcknowledgementsCostAtMostOneRedeliveryEach() {
		ChaosProxy proxy = startRedisBehindProxy();
		List<WorkerProcess> workers = startWorkersVia(proxy.port(), 2);
		List<String> ids = dispatch(300, ChaosTask.standard(), 5);
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		QueueStats stats = stats();
		String ack = SCRIPTS.ack().getSha1();
		for (int round = 0; stats.ready() + stats.delayed() + stats.reserved() > 0; round++) {
			assertThat(System.nanoTime()).as("drained: %s", stats).isLessThan(deadline);
			sleep(300);
			// an ack that Redis executed but whose reply was lost, or one Redis never
			// saw;
			// a bounded number of faults, so that the last jobs' acks are not all lost
			if (round >= 12) {
				// no more faults
			}
			else if (round % 2 == 0) {
				proxy.dropReplyTo(ack);
			}
			else {
				proxy.dropRequest(ack);
			}
			stats = stats();
		}
		Map<String, Integer> starts = new TreeMap<>();
		entries((entry) -> entry.is("START")).forEach((entry) -> starts.merge(entry.id(), 1, Integer::sum));
		int most = starts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		long duplicates = starts.values().stream().filter((count) -> count > 1).count();
		int extraRuns = starts.values().stream().mapToInt((count) -> count - 1).sum();
		int lostAcks = proxy.droppedReplies() + proxy.droppedRequests();
		// Lettuce re-sends an ack that Redis ran before the connection reset; the second
		// one finds the job gone and must not be reported as refused
		List<String> lateAcks = new ArrayList<>();
		for (WorkerProcess worker : workers) {
			for (String line : worker.logLines()) {
				Matcher matcher = LATE_ACK.matcher(line);
				if (matcher.find()) {
					lateAcks.add(matcher.group(1));
				}
			}
		}
		long falseAlarms = lateAcks.stream().filter((id) -> starts.getOrDefault(id, 0) == 1).count();
		report("lost acks: " + proxy.droppedReplies() + " ack replies and " + proxy.droppedRequests()
				+ " ack requests dropped (connection reset); " + duplicates + " jobs ran again, " + extraRuns
				+ " extra runs, most starts of one job: " + most + "; " + lateAcks.size()
				+ " 'Late acknowledgement' warnings, " + falseAlarms + " of them for jobs that ran only once");
		assertThat(lostAcks).as("the fault happened").isPositive();
		assertThat(extraRuns).as("at most one redelivery per lost ack").isLessThanOrEqualTo(lostAcks);
		assertThat(falseAlarms).as("refused-ack warnings for jobs that ran once").isZero();
		checkInvariants(ids, starts.keySet());
	}

	@Test // issue 5, scenario 8: blackhole
	void workersResumeAfterABlackholeLongerThanTheLease() {
		ChaosProxy proxy = startRedisBehindProxy();
		List<WorkerProcess> workers = startWorkersVia(proxy.port(), 2);
		List<String> ids = dispatch(300, ChaosTask.standard(), 5);
		awaitEntries((entry) -> entry.is("DONE"), 40, Duration.ofSeconds(30));
		long blackholedAt = System.currentTimeMillis();
		proxy.blackhole(true);
		sleep(3 * LEASE.toMillis());
		proxy.blackhole(false);
		long openedAt = System.currentTimeMillis();
		awaitDrained(Duration.ofSeconds(60));
		long firstStart = entries((entry) -> entry.is("START") && entry.time() >= openedAt).stream()
			.mapToLong(LedgerEntry::time)
			.min()
			.orElse(-1);
		report("blackhole for " + 3 * LEASE.toMillis() + " ms: first job started " + (firstStart - openedAt)
				+ " ms after the network came back; " + workers.stream().mapToLong(this::refusals).sum()
				+ " stale tokens refused");
		checkInvariants(ids, startedBy(workers, openedAt));
		assertThat(blackholedAt).isPositive();
	}

	/** Start Redis and a proxy in front of it, through which the test injects faults. */
	private ChaosProxy startRedisBehindProxy() {
		startRedis();
		return proxy();
	}

}
