package io.redq.queue.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

	@Test // issue 39: a lost reply on a shared call
	void aLostReplyOfASharedDispatchCallIsReportedToEachOfItsCallersAndItsJobsAreStoredOnce() throws Exception {
		ChaosProxy proxy = startRedisBehindProxy();
		RedisJobDispatcher flaky = dispatcherVia(proxy.port(), Duration.ofSeconds(20));
		flaky.setCoalescingMaxInFlight(1);
		flaky.dispatch(request("warm"));
		// the first call held in Redis while the others arrive: they share the next call
		this.redis.command("CLIENT", "PAUSE", "30000", "WRITE");
		List<Thread> callers = new ArrayList<>();
		FutureTask<DispatchResult> first = inThread(callers, () -> flaky.dispatch(request("first")));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.redis.command("INFO", "clients").contains("blocked_clients:1"));
		callers.clear();
		List<FutureTask<DispatchResult>> shared = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			String id = "shared-" + i;
			shared.add(inThread(callers, () -> flaky.dispatch(request(id))));
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> callers.stream().allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING));
		long before = ScriptExecutions.count(this.redis);
		proxy.dropReplyTo("shared-0");
		this.redis.command("CLIENT", "UNPAUSE");
		assertThat(first.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CREATED);
		int failed = 0;
		for (int i = 0; i < shared.size(); i++) {
			String id = "shared-" + i;
			try {
				assertThat(shared.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(new DispatchResult(id, Outcome.CREATED));
			}
			catch (ExecutionException ex) {
				// reported: Redis ran the call, so dispatching again under the id keeps
				// it
				failed++;
				assertThat(flaky.dispatch(request(id))).isEqualTo(new DispatchResult(id, Outcome.KEPT));
			}
		}
		report("a shared call of 8 dispatches whose reply was lost: " + failed + " callers told it failed, "
				+ (ScriptExecutions.count(this.redis) - before) + " script calls with the retries");
		assertThat(proxy.droppedReplies()).as("the fault happened").isEqualTo(1);
		assertThat(ScriptExecutions.count(this.redis) - before)
			.as("the first call, the shared one once, then the retries")
			.isEqualTo(2 + failed);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(10, 0, 0, 0));
		assertThat(this.redis.command("LRANGE", this.operations.getStore().keys(QUEUE).ready(), "0", "-1").lines())
			.hasSize(10)
			.doesNotHaveDuplicates();
	}

	private static JobRequest request(String id) {
		return JobRequest.of(ChaosTask.JOB_NAME, new ChaosTask(0, false)).id(id, DuplicatePolicy.KEEP).build();
	}

	private static FutureTask<DispatchResult> inThread(List<Thread> callers, Callable<DispatchResult> call) {
		FutureTask<DispatchResult> task = new FutureTask<>(call);
		Thread thread = new Thread(task, "caller-" + callers.size());
		thread.setDaemon(true);
		callers.add(thread);
		thread.start();
		return task;
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
