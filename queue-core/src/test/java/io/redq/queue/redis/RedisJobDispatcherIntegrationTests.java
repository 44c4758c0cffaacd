package io.redq.queue.redis;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.test.ScriptExecutions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisJobDispatcher} against a real Redis.
 *
 * @author Redq team
 */
class RedisJobDispatcherIntegrationTests extends AbstractQueueIntegrationTests {

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.dispatcher = new RedisJobDispatcher(this.operations,
				TestJobDefinitions.of(job("send-invoice", "mail", Invoice.class),
						job("close-auction", "auctions", Long.class), job("ping", "default", String.class),
						job("pong", "default", String.class), job("remote", "elsewhere", null)),
				this.jsonMapper);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void dispatchWritesTheEnvelopeToTheJobsQueue() {
		String id = this.dispatcher
			.dispatch(JobRequest.of("send-invoice", new Invoice("INV-1", 42)).header("tenant", "acme").build())
			.id();
		assertThat(this.template.opsForList().range("redq:{mail}:ready", 0, -1)).containsExactly(id);
		JsonNode envelope = this.jsonMapper.readTree((String) this.template.opsForHash().get("redq:{mail}:jobs", id));
		assertThat(id).as("a generated id").hasSize(22).matches("[A-Za-z0-9_-]+");
		assertThat(envelope.get("job").asString()).isEqualTo("send-invoice");
		assertThat(envelope.has("id")).as("the id is the hash field").isFalse();
		assertThat(envelope.has("queue")).as("the queue is in the key").isFalse();
		assertThat(envelope.get("maxAttempts").asInt()).isEqualTo(3);
		assertThat(envelope.get("createdAt").asLong()).isEqualTo(envelope.get("availableAt").asLong()).isPositive();
		assertThat(envelope.get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(this.jsonMapper.treeToValue(envelope.get("payload"), Invoice.class))
			.isEqualTo(new Invoice("INV-1", 42));
	}

	@Test
	void payloadTypeSelectsTheOnlyJobThatTakesIt() {
		String id = this.dispatcher.dispatch(new Invoice("INV-2", 1)).id();
		assertThat(this.template.opsForList().range("redq:{mail}:ready", 0, -1)).containsExactly(id);
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("a string"))
			.withMessage("More than one job (ping, pong) takes a payload of type java.lang.String; dispatch by job "
					+ "name instead. Known jobs: [close-auction, ping, pong, remote, send-invoice]");
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch(Instant.now()))
			.withMessageStartingWith("No job takes a payload of type java.time.Instant");
	}

	@Test
	void queueOverrideDelayAndInstantAreApplied() {
		this.dispatcher.dispatch(JobRequest.of("ping", "x").queue("other").build());
		String delayed = this.dispatcher.dispatch(JobRequest.of("ping", "x").delay(Duration.ofMinutes(5)).build()).id();
		Instant at = Instant.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		String timer = this.dispatcher.dispatch(JobRequest.of("close-auction", 42L).id("auction-42").at(at).build())
			.id();
		String past = this.dispatcher.dispatch(JobRequest.of("ping", "x").delay(Duration.ofSeconds(-5)).build()).id();
		assertThat(this.operations.stats("other").ready()).isEqualTo(1);
		assertThat(this.template.opsForZSet().score("redq:{default}:delayed", delayed)).isPositive();
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1)).containsExactly(past);
		assertThat(this.template.opsForZSet().score("redq:{auctions}:delayed", timer)).isEqualTo(at.toEpochMilli());
		assertThat(timer).isEqualTo("auction-42");
	}

	@Test
	void callerIdDeduplicatesWithTheChosenPolicy() {
		Instant first = Instant.now().plusSeconds(60);
		Instant later = first.plusSeconds(60);
		this.dispatcher.dispatch(JobRequest.of("close-auction", 1L).id("auction-7").at(first).build());
		this.dispatcher.dispatch(JobRequest.of("close-auction", 2L).id("auction-7").at(later).build());
		assertThat(this.template.opsForZSet().score("redq:{auctions}:delayed", "auction-7"))
			.isEqualTo(first.toEpochMilli());
		this.dispatcher
			.dispatch(JobRequest.of("close-auction", 3L).id("auction-7", DuplicatePolicy.REPLACE).at(later).build());
		assertThat(this.template.opsForZSet().score("redq:{auctions}:delayed", "auction-7"))
			.isEqualTo(later.toEpochMilli());
		assertThat((String) this.template.opsForHash().get("redq:{auctions}:jobs", "auction-7"))
			.contains("\"payload\":3");
		assertThat(this.operations.stats("auctions")).isEqualTo(new QueueStats(0, 1, 0, 0));
	}

	@Test
	void dispatchSaysWhetherItCreatedKeptReplacedQueuedOrDroppedTheJob() {
		assertThat(dispatchWithId(DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED))
			.isEqualTo(new DispatchResult("ping-1", Outcome.CREATED));
		assertThat(dispatchWithId(DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED).outcome()).isEqualTo(Outcome.KEPT);
		assertThat(dispatchWithId(DuplicatePolicy.REPLACE, Uniqueness.UNTIL_COMPLETED).outcome())
			.isEqualTo(Outcome.REPLACED);
		assertThat(this.listener.reserve("default", 1, Duration.ofMinutes(1)).jobs()).hasSize(1);
		assertThat(dispatchWithId(DuplicatePolicy.REPLACE, Uniqueness.UNTIL_COMPLETED).outcome())
			.isEqualTo(Outcome.DROPPED);
		assertThat(dispatchWithId(DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED).outcome()).isEqualTo(Outcome.QUEUED);
		assertThat(dispatchWithId(DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED).outcome())
			.as("the dispatch queued before is kept")
			.isEqualTo(Outcome.KEPT);
		assertThat(this.operations.stats("default")).isEqualTo(new QueueStats(0, 0, 1, 0));
		assertThat(this.template.opsForHash().keys("redq:{default}:successors")).containsExactly("ping-1");
	}

	@Test
	void everyWayToDispatchTellsWhatHappenedToEachJob() throws Exception {
		JobRequest request = JobRequest.of("ping", "p").id("ping-1").build();
		assertThat(this.dispatcher.dispatchAll(
				List.of(request, JobRequest.of("send-invoice", new Invoice("I", 1)).id("invoice-1").build(), request)))
			.extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactly(tuple("ping-1", Outcome.CREATED), tuple("invoice-1", Outcome.CREATED),
					tuple("ping-1", Outcome.KEPT));
		assertThat(this.dispatcher.dispatchAsync(request).get(10, TimeUnit.SECONDS))
			.isEqualTo(new DispatchResult("ping-1", Outcome.KEPT));
		assertThat(this.dispatcher.dispatch("ping", "p").outcome()).isEqualTo(Outcome.CREATED);
	}

	@Test
	void scheduleSaysWhetherTheTimerWasSetMovedOrDroppedBecauseItRuns() {
		Instant at = Instant.now().plusSeconds(60);
		assertThat(this.dispatcher.schedule("close-auction", 7L, at))
			.isEqualTo(new DispatchResult("close-auction:7", Outcome.CREATED));
		assertThat(this.dispatcher.schedule("close-auction", 7L, Instant.now()).outcome()).isEqualTo(Outcome.REPLACED);
		assertThat(this.listener.reserve("auctions", 1, Duration.ofMinutes(1)).jobs()).extracting(ReservedJob::id)
			.containsExactly("close-auction:7");
		assertThat(this.dispatcher.schedule("close-auction", 7L, at).outcome()).isEqualTo(Outcome.DROPPED);
		assertThat(this.operations.stats("auctions")).isEqualTo(new QueueStats(0, 0, 1, 0));
	}

	@Test
	void theReSendWindowIsSentWithEachDispatch() {
		this.dispatcher.setResendWindow(Duration.ofSeconds(5));
		this.dispatcher.dispatch("ping", "p");
		List<String> sent = List.copyOf(this.template.keys("redq:{default}:sent:*"));
		assertThat(sent).singleElement()
			.satisfies((key) -> assertThat(this.template.getExpire(key, TimeUnit.MILLISECONDS)).isBetween(1L, 5000L));
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.setResendWindow(Duration.ZERO))
			.withMessageContaining("resendWindow must be at least 1 ms");
	}

	@Test
	void cancelRemovesAPendingJob() {
		String id = this.dispatcher.dispatch(JobRequest.of("ping", "x").delay(Duration.ofMinutes(1)).build()).id();
		assertThat(this.dispatcher.cancel("default", id)).isTrue();
		assertThat(this.dispatcher.cancel("default", id)).isFalse();
		assertThat(this.operations.stats("default")).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void dispatchAllEnqueuesEveryJobInOrderWithOneScriptCallPerQueue() {
		List<JobRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2500; i++) {
			requests.add(JobRequest
				.of((i % 2 == 0) ? "ping" : "send-invoice", (i % 2 == 0) ? "p" + i : new Invoice("I" + i, i))
				.build());
		}
		long before = ScriptExecutions.count(this.redis);
		List<String> ids = this.dispatcher.dispatchAll(requests).stream().map(DispatchResult::id).toList();
		assertThat(ScriptExecutions.count(this.redis) - before).isEqualTo(4);
		assertThat(ids).hasSize(2500).doesNotHaveDuplicates();
		List<String> expectedDefault = new ArrayList<>();
		for (int i = 0; i < ids.size(); i += 2) {
			expectedDefault.add(ids.get(i));
		}
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1))
			.containsExactlyElementsOf(expectedDefault);
		assertThat(this.operations.stats("mail").ready()).isEqualTo(1250);
	}

	@Test
	void generatedIdsAreNotLookedUpAndCallerChosenIdsOneByOne() {
		long before = ScriptExecutions.calls(this.redis, "hexists");
		long lookupsBefore = ScriptExecutions.calls(this.redis, "hmget");
		this.dispatcher.dispatchAll(Collections.nCopies(100, JobRequest.of("ping", "p").build()));
		assertThat(ScriptExecutions.calls(this.redis, "hexists")).isEqualTo(before);
		assertThat(ScriptExecutions.calls(this.redis, "hmget")).isEqualTo(lookupsBefore);
		this.dispatcher.dispatch(JobRequest.of("ping", "p").id("chosen", DuplicatePolicy.KEEP).build());
		assertThat(ScriptExecutions.calls(this.redis, "hexists")).isEqualTo(before + 1);
		assertThat(this.operations.stats("default").ready()).isEqualTo(101);
	}

	@Test
	void badRequestsAreRejectedWithWhatToDo() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("nope", "x"))
			.withMessage("No job named 'nope' is known to this application. Declare a @QueuedJob(name = \"nope\") "
					+ "method, or, for a job handled by another application, set redq.remote-jobs.nope.queue. Known jobs: "
					+ "[close-auction, ping, pong, remote, send-invoice]");
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("ping", "x").queue("a{b}"))
			.withMessageContaining("Invalid queue name 'a{b}'");
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("ping", "x").queue(""))
			.withMessageContaining("it is empty");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobRequest.of("ping", "x").at(Instant.parse("+10000-01-01T00:00:00Z")))
			.withMessageContaining("after the year 9999");
		this.dispatcher.setMaxPayloadSize(1024);
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("ping", "x".repeat(2000)))
			.withMessageContaining("more than the limit of 1024 bytes (redq.dispatcher.max-payload-size)");
		assertThat(this.template.keys("redq:*")).isEmpty();
	}

	@Test
	void asyncDispatchesPendingTogetherShareScriptCallsInTheOrderOfTheCalls() throws Exception {
		List<CompletableFuture<DispatchResult>> futures = new ArrayList<>();
		long before = ScriptExecutions.count(this.redis);
		// Redis holds the first call while the others are made, so that they wait
		// together
		this.redis.command("CLIENT", "PAUSE", "1000", "WRITE");
		for (int i = 0; i < 2500; i++) {
			futures.add(this.dispatcher.dispatchAsync("ping", "p" + i));
		}
		List<String> ids = new ArrayList<>();
		for (CompletableFuture<DispatchResult> future : futures) {
			ids.add(future.get(10, TimeUnit.SECONDS).id());
		}
		assertThat(ScriptExecutions.count(this.redis) - before).as("one call for the first job, one per 1,000 after")
			.isBetween(3L, 4L);
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1)).containsExactlyElementsOf(ids);
	}

	@Test
	void aFailedAsyncDispatchFailsItsFutureAndLaterOnesAreSent() throws Exception {
		this.template.opsForValue().set("redq:{default}:ready", "not a list");
		CompletableFuture<DispatchResult> failed = this.dispatcher.dispatchAsync("ping", "x");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
			.havingRootCause()
			.withMessageContaining("WRONGTYPE");
		this.template.delete("redq:{default}:ready");
		String id = this.dispatcher.dispatchAsync("ping", "y").get(10, TimeUnit.SECONDS).id();
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1)).containsExactly(id);
	}

	@Test
	void aFailureToReportDispatchedJobsFailsNeitherTheDispatchNorTheSender() throws Exception {
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.dispatcher.setObservationEnabled(true);
		this.dispatcher.setObservationRegistry(observations);
		this.operations.setMetrics(new JobMetrics() {

			@Override
			public void dispatched(String queue, String job) {
				throw new IllegalStateException("metrics down");
			}

		});
		List<String> ids = new ArrayList<>(this.dispatcher
			.dispatchAll(List.of(JobRequest.of("ping", "a").build(), JobRequest.of("ping", "b").build()))
			.stream()
			.map(DispatchResult::id)
			.toList());
		ids.add(this.dispatcher.dispatchAsync("ping", "c").get(10, TimeUnit.SECONDS).id());
		ids.add(this.dispatcher.dispatchAsync("ping", "d").get(10, TimeUnit.SECONDS).id());
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1)).containsExactlyElementsOf(ids);
		// the jobs are in Redis: their observations did not end with an error
		TestObservationRegistryAssert.assertThat(observations)
			.hasNumberOfObservationsEqualTo(4)
			.forAllObservationsWithNameEqualTo("redq.dispatcher", (observation) -> observation.doesNotHaveError());
	}

	@Test
	void asyncDispatchRejectsABadRequestAtTheCall() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatchAsync("nope", "x"))
			.withMessageStartingWith("No job named 'nope' is known to this application.");
		assertThat(this.template.keys("redq:*")).isEmpty();
	}

	@Test
	void closingSendsThePendingAsyncDispatchesAndRefusesLaterOnes() throws Exception {
		this.redis.command("CLIENT", "PAUSE", "300", "WRITE");
		List<CompletableFuture<DispatchResult>> futures = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			futures.add(this.dispatcher.dispatchAsync("ping", "p" + i));
		}
		this.dispatcher.stop();
		assertThat(futures).allSatisfy((future) -> assertThat(future).isCompleted());
		assertThat(this.operations.stats("default").ready()).isEqualTo(100);
		assertThatIllegalStateException().isThrownBy(() -> this.dispatcher.dispatchAsync("ping", "late"))
			.withMessage("The dispatcher is closed: its application is shutting down");
		assertThat(Thread.getAllStackTraces().keySet())
			.noneMatch((thread) -> thread.getName().startsWith("redq-dispatcher-"));
	}

	@Test
	void closingFailsTheAsyncDispatchesRedisDidNotTakeInTime() throws Exception {
		this.dispatcher.setCloseTimeout(Duration.ofMillis(200));
		this.redis.command("CLIENT", "PAUSE", "2000", "WRITE");
		CompletableFuture<DispatchResult> inFlight = this.dispatcher.dispatchAsync("ping", "first");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.redis.command("INFO", "clients").contains("blocked_clients:1"));
		List<CompletableFuture<DispatchResult>> waiting = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			waiting.add(this.dispatcher.dispatchAsync("ping", "p" + i));
		}
		this.dispatcher.stop();
		assertThat(waiting).allSatisfy((future) -> assertThat(future).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingCause()
			.withMessage("Redis did not take this job within 200 ms of the dispatcher closing; it was not sent"));
		String id = inFlight.get(10, TimeUnit.SECONDS).id();
		assertThat(this.template.opsForList().range("redq:{default}:ready", 0, -1)).containsExactly(id);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Thread.getAllStackTraces()
				.keySet()
				.stream()
				.noneMatch((thread) -> thread.getName().startsWith("redq-dispatcher-")));
	}

	@Test
	void jobHandledElsewhereIsDispatchedToItsQueue() {
		String id = this.dispatcher.dispatch("remote", Map.of("any", "thing")).id();
		assertThat(this.template.opsForList().range("redq:{elsewhere}:ready", 0, -1)).containsExactly(id);
	}

	private DispatchResult dispatchWithId(DuplicatePolicy policy, Uniqueness uniqueness) {
		return this.dispatcher.dispatch(JobRequest.of("ping", "p").id("ping-1", policy).unique(uniqueness).build());
	}

	private static JobDefinition job(String name, String queue, @Nullable Type payloadType) {
		return new JobDefinition(name, queue, 3, Duration.ZERO, JobBackoff.DEFAULT, payloadType);
	}

	record Invoice(String number, int cents) {
	}

}
