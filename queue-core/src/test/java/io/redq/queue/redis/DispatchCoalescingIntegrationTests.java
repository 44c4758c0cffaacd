package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.DispatchVetoedException;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.ScriptExecutions;
import io.redq.queue.test.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests that the dispatches of a queue that arrive while a call for it is in flight share
 * the next script call, with every guarantee of a call of their own: each caller's
 * result, failure, timeout and order, against a real Redis process of the test's own
 * (held with {@code CLIENT PAUSE} or stopped, so that callers meet in a shared call
 * whatever the machine's speed).
 *
 * @author Redq team
 */
class DispatchCoalescingIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisJobDispatcher dispatcher;

	private final List<Thread> callers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.redis = RedisServer.local().start();
		this.connectionFactory = TestConnections.connectionFactory(this.redis);
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("ping", "default", 3, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		catalog.register(new JobDefinition("tick", "default", 3, Duration.ZERO, JobBackoff.DEFAULT, Long.class));
		this.dispatcher = new RedisJobDispatcher(operations, catalog, JsonMapper.shared());
		// shared calls are the default; one call in flight, so that every dispatch
		// arriving
		// meanwhile waits for the next call (with the default two, the first of them goes
		// at once)
		this.dispatcher.setCoalescingMaxInFlight(1);
		this.dispatcher.setInterceptors(List.of(new DispatchInterceptor() {

			@Override
			public void beforeDispatch(OutgoingJob job) {
				if ("veto".equals(job.getPayload())) {
					throw new IllegalStateException("no");
				}
			}

		}));
		// connected and the scripts loaded, as in an application that ran a while
		this.dispatcher.dispatch(JobRequest.of("ping", "warm").id("warm").build());
	}

	@AfterEach
	void tearDown() {
		this.redis.resume();
		this.callers.forEach(Thread::interrupt);
		this.dispatcher.stop();
		this.connectionFactory.destroy();
		this.redis.close();
	}

	@Test
	void dispatchesArrivingWhileACallIsInFlightShareTheNextCallAndEachGetsItsOwnResult() throws Exception {
		long before = ScriptExecutions.count(this.redis);
		FutureTask<DispatchResult> first = holdRedisWhileDispatching("first");
		List<FutureTask<DispatchResult>> sync = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			sync.add(inThread(dispatch("s" + i)));
		}
		List<CompletableFuture<DispatchResult>> async = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			async.add(this.dispatcher.dispatchAsync(JobRequest.of("ping", "a" + i).id("a" + i).build()));
		}
		awaitCallersWaiting();
		this.redis.command("CLIENT", "UNPAUSE");
		assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CREATED);
		List<DispatchResult> results = new ArrayList<>();
		for (FutureTask<DispatchResult> caller : sync) {
			results.add(caller.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		for (CompletableFuture<DispatchResult> caller : async) {
			results.add(caller.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			ids.add("s" + i);
		}
		for (int i = 0; i < 8; i++) {
			ids.add("a" + i);
		}
		assertThat(results).extracting(DispatchResult::id).containsExactlyElementsOf(ids);
		assertThat(results).extracting(DispatchResult::outcome).containsOnly(Outcome.CREATED);
		assertThat(ScriptExecutions.count(this.redis) - before).as("the first call, then one for the 16 jobs")
			.isEqualTo(2);
		assertThat(this.redis.command("HLEN", "redq:{default}:jobs")).isEqualTo("18");
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines()).hasSize(18)
			.doesNotHaveDuplicates()
			.containsAll(ids)
			.startsWith("warm", "first");
	}

	@Test
	void aSharedCallTakesKeptReplacedAndTimedJobsAndRepeatedIdsAsSuccessiveCallsWouldAndAVetoFailsOnlyItsCaller()
			throws Exception {
		Instant inAnHour = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
		Instant inTwoHours = inAnHour.plus(Duration.ofHours(1));
		this.dispatcher.dispatch(JobRequest.of("ping", "old").id("kept", DuplicatePolicy.KEEP).build());
		this.dispatcher.dispatch(JobRequest.of("ping", "old").id("replaced", DuplicatePolicy.REPLACE).build());
		this.dispatcher.schedule("tick", 1L, inAnHour);
		long before = ScriptExecutions.count(this.redis);
		holdRedisWhileDispatching("first");
		FutureTask<DispatchResult> kept = inThread(
				() -> this.dispatcher.dispatch(JobRequest.of("ping", "new").id("kept", DuplicatePolicy.KEEP).build()));
		FutureTask<DispatchResult> replaced = inThread(() -> this.dispatcher
			.dispatch(JobRequest.of("ping", "new").id("replaced", DuplicatePolicy.REPLACE).build()));
		FutureTask<DispatchResult> moved = inThread(() -> this.dispatcher.schedule("tick", 1L, inTwoHours));
		FutureTask<DispatchResult> timer = inThread(() -> this.dispatcher.schedule("tick", 2L, inAnHour));
		// one thread's dispatches of one id, in order
		List<CompletableFuture<DispatchResult>> repeated = List.of(
				this.dispatcher.dispatchAsync(JobRequest.of("ping", "1").id("twice", DuplicatePolicy.KEEP).build()),
				this.dispatcher.dispatchAsync(JobRequest.of("ping", "2").id("twice", DuplicatePolicy.KEEP).build()),
				this.dispatcher.dispatchAsync(JobRequest.of("ping", "1").id("moved", DuplicatePolicy.REPLACE).build()),
				this.dispatcher.dispatchAsync(JobRequest.of("ping", "2").id("moved", DuplicatePolicy.REPLACE).build()));
		FutureTask<DispatchResult> vetoed = inThread(dispatch("veto"));
		FutureTask<DispatchResult> unknown = inThread(
				() -> this.dispatcher.dispatch(JobRequest.of("nope", "x").id("unknown").build()));
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> vetoed.get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.withCauseInstanceOf(DispatchVetoedException.class);
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> unknown.get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalArgumentException.class);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher.dispatchAsync(JobRequest.of("nope", "x").id("unknown").build()));
		awaitCallersWaiting();
		this.redis.command("CLIENT", "UNPAUSE");
		assertThat(List.of(kept, replaced, moved, timer))
			.extracting((task) -> task.get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.extracting("id", "outcome")
			.containsExactly(tuple("kept", Outcome.KEPT), tuple("replaced", Outcome.REPLACED),
					tuple("tick:1", Outcome.REPLACED), tuple("tick:2", Outcome.CREATED));
		List<DispatchResult> results = new ArrayList<>();
		for (CompletableFuture<DispatchResult> future : repeated) {
			results.add(future.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		assertThat(results).extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactly(tuple("twice", Outcome.CREATED), tuple("twice", Outcome.KEPT),
					tuple("moved", Outcome.CREATED), tuple("moved", Outcome.REPLACED));
		assertThat(ScriptExecutions.count(this.redis) - before).as("the first call, then one for the 8 jobs")
			.isEqualTo(2);
		assertThat(payload("kept")).isEqualTo("\"old\"");
		assertThat(payload("replaced")).isEqualTo("\"new\"");
		assertThat(payload("twice")).isEqualTo("\"1\"");
		assertThat(payload("moved")).isEqualTo("\"2\"");
		assertThat(this.redis.command("ZSCORE", "redq:{default}:delayed", "tick:1"))
			.isEqualTo(Long.toString(inTwoHours.toEpochMilli()));
		assertThat(this.redis.command("ZSCORE", "redq:{default}:delayed", "tick:2"))
			.isEqualTo(Long.toString(inAnHour.toEpochMilli()));
		assertThat(this.redis.command("HEXISTS", "redq:{default}:jobs", "unknown")).isEqualTo("0");
		assertThat(this.redis.command("HLEN", "redq:{default}:jobs"))
			.as("warm, first, kept, replaced, twice, moved, " + "and the two timers")
			.isEqualTo("8");
	}

	@Test
	void callersThatTimeOutWhileTheirJobsAreInASharedCallAreToldTheyMayStillBeEnqueuedAndTheyAreOnce()
			throws Exception {
		long before = ScriptExecutions.count(this.redis);
		this.redis.pause();
		// the call in flight ends for the dispatcher when its async caller times out
		this.dispatcher.setTimeout(Duration.ofSeconds(2));
		CompletableFuture<DispatchResult> first = this.dispatcher
			.dispatchAsync(JobRequest.of("ping", "first").id("first").build());
		this.dispatcher.setTimeout(Duration.ofSeconds(4));
		List<FutureTask<DispatchResult>> shared = List.of(inThread(dispatch("a")), inThread(dispatch("b")),
				inThread(dispatch("c")));
		awaitCallersWaiting();
		assertThat(first).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOfSatisfying(DispatchTimeoutException.class, (ex) -> assertThat(ex.isSent()).isTrue());
		for (FutureTask<DispatchResult> caller : shared) {
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> caller.get(WAIT.toSeconds(), TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOfSatisfying(DispatchTimeoutException.class, (ex) -> assertThat(ex.isSent()).isTrue())
				.withMessageContaining("The call is not cancelled: the jobs may still be enqueued");
		}
		this.redis.resume();
		await().atMost(WAIT).until(() -> "5".equals(this.redis.command("LLEN", "redq:{default}:ready")));
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines())
			.containsExactlyInAnyOrder("warm", "first", "a", "b", "c")
			.startsWith("warm", "first");
		assertThat(ScriptExecutions.count(this.redis) - before).as("the first call, then one for a, b and c")
			.isEqualTo(2);
		assertThat(this.dispatcher.dispatch(JobRequest.of("ping", "a").id("a").build()).outcome())
			.isEqualTo(Outcome.KEPT);
	}

	@Test
	void aCallerThatTimesOutWhileItsJobWaitsForTheCallInFlightTakesItBack() throws Exception {
		this.redis.pause();
		this.dispatcher.setTimeout(Duration.ofSeconds(30));
		CompletableFuture<DispatchResult> first = this.dispatcher
			.dispatchAsync(JobRequest.of("ping", "first").id("first").build());
		this.dispatcher.setTimeout(Duration.ofMillis(300));
		assertThatExceptionOfType(DispatchTimeoutException.class).isThrownBy(() -> dispatch("late").call())
			.satisfies((ex) -> assertThat(ex.isSent()).isFalse())
			.withMessage("Redis did not take 1 job(s) of queue 'default' within 300 ms (redq.dispatcher.timeout): it "
					+ "is down, unreachable or overloaded. The jobs were not sent, as the call before them on their "
					+ "queue still waits for its reply: they will not be enqueued. Check that Redis is up and "
					+ "reachable, then dispatch them again");
		this.redis.resume();
		assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CREATED);
		this.dispatcher.setTimeout(WAIT);
		assertThat(dispatch("next").call().outcome()).isEqualTo(Outcome.CREATED);
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines()).containsExactly("warm",
				"first", "next");
	}

	@Test
	void withTwoCallsInFlightASynchronousDispatchArrivingWhileOneIsInFlightIsSentAtOnce() throws Exception {
		this.dispatcher.setCoalescingMaxInFlight(2);
		long before = ScriptExecutions.count(this.redis);
		FutureTask<DispatchResult> first = holdRedisWhileDispatching("first");
		FutureTask<DispatchResult> second = inThread(dispatch("second"));
		awaitCallersWaiting();
		List<FutureTask<DispatchResult>> others = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			others.add(inThread(dispatch("s" + i)));
		}
		awaitCallersWaiting();
		this.redis.command("CLIENT", "UNPAUSE");
		List<DispatchResult> results = new ArrayList<>(
				List.of(first.get(WAIT.toSeconds(), TimeUnit.SECONDS), second.get(WAIT.toSeconds(), TimeUnit.SECONDS)));
		for (FutureTask<DispatchResult> caller : others) {
			results.add(caller.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		assertThat(results).extracting(DispatchResult::outcome).containsOnly(Outcome.CREATED);
		assertThat(ScriptExecutions.count(this.redis) - before)
			.as("the first call, the second sent beside it, then one for the 8 jobs that came while both were in flight")
			.isEqualTo(3);
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines()).hasSize(11)
			.doesNotHaveDuplicates()
			.startsWith("warm", "first", "second");
	}

	@Test
	void withTwoCallsInFlightAnAsynchronousDispatchWaitingKeepsOneCallInFlight() throws Exception {
		this.dispatcher.setCoalescingMaxInFlight(2);
		long before = ScriptExecutions.count(this.redis);
		FutureTask<DispatchResult> first = holdRedisWhileDispatching("first");
		CompletableFuture<DispatchResult> async = this.dispatcher
			.dispatchAsync(JobRequest.of("ping", "async").id("async").build());
		FutureTask<DispatchResult> sync = inThread(dispatch("sync"));
		awaitCallersWaiting();
		this.redis.command("CLIENT", "UNPAUSE");
		assertThat(List.of(first.get(WAIT.toSeconds(), TimeUnit.SECONDS), async.get(WAIT.toSeconds(), TimeUnit.SECONDS),
				sync.get(WAIT.toSeconds(), TimeUnit.SECONDS)))
			.extracting(DispatchResult::outcome)
			.containsOnly(Outcome.CREATED);
		assertThat(ScriptExecutions.count(this.redis) - before).as("the first call, then one for the two jobs")
			.isEqualTo(2);
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines()).containsExactly("warm",
				"first", "async", "sync");
	}

	@Test
	void oneThreadsDispatchesAreStoredInTheirOrderWhetherSynchronousOrNot() throws Exception {
		List<CompletableFuture<DispatchResult>> results = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			JobRequest request = JobRequest.of("ping", "p" + i).id("p" + i).build();
			results.add((i % 2 == 0) ? this.dispatcher.dispatchAsync(request)
					: CompletableFuture.completedFuture(this.dispatcher.dispatch(request)));
		}
		List<String> ids = new ArrayList<>(List.of("warm"));
		for (CompletableFuture<DispatchResult> result : results) {
			ids.add(result.get(WAIT.toSeconds(), TimeUnit.SECONDS).id());
		}
		assertThat(this.redis.command("LRANGE", "redq:{default}:ready", "0", "-1").lines())
			.containsExactlyElementsOf(ids);
	}

	/**
	 * Hold Redis's writes and dispatch a job from a thread of its own: its call stays in
	 * flight until {@code CLIENT UNPAUSE}.
	 */
	private FutureTask<DispatchResult> holdRedisWhileDispatching(String id) {
		this.redis.command("CLIENT", "PAUSE", Long.toString(WAIT.toMillis()), "WRITE");
		FutureTask<DispatchResult> first = inThread(dispatch(id));
		await().atMost(WAIT).until(() -> this.redis.command("INFO", "clients").contains("blocked_clients:1"));
		this.callers.clear();
		return first;
	}

	private Callable<DispatchResult> dispatch(String id) {
		return () -> this.dispatcher.dispatch(JobRequest.of("ping", id).id(id).build());
	}

	private FutureTask<DispatchResult> inThread(Callable<DispatchResult> call) {
		FutureTask<DispatchResult> task = new FutureTask<>(call);
		Thread thread = new Thread(task, "caller-" + this.callers.size());
		thread.setDaemon(true);
		this.callers.add(thread);
		thread.start();
		return task;
	}

	/**
	 * Wait until the callers started since the call in flight wait for Redis, or failed
	 * before they sent anything.
	 */
	private void awaitCallersWaiting() {
		await().atMost(WAIT)
			.until(() -> this.callers.stream()
				.allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING
						|| thread.getState() == Thread.State.TERMINATED));
	}

	private String payload(String id) {
		String envelope = this.redis.command("HGET", "redq:{default}:jobs", id);
		return JsonMapper.shared().readTree(envelope).get("payload").toString();
	}

}
