package io.redq.queue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.Due;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.JobQueueInspector.SearchBy;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.GateOperations;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.ScriptExecutions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JobQueueInspector} against a real Redis.
 *
 * @author Redq team
 */
class JobQueueInspectorIntegrationTests extends AbstractQueueIntegrationTests {

	private RedisJobDispatcher dispatcher;

	private JobQueueInspector inspector;

	@BeforeEach
	void setUp() {
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("work", QUEUE, 1, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		catalog.register(new JobDefinition("remote", "elsewhere", 1, Duration.ZERO, JobBackoff.DEFAULT, null));
		this.dispatcher = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		this.inspector = new JobQueueInspector(this.operations, catalog);
		this.inspector.setDiscoveryInterval(Duration.ZERO);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void listsHandledDispatchedAndQueuesOnlyRedisHolds() {
		this.dispatcher.dispatch(JobRequest.of("work", "lost").queue("nowhere").build());
		List<InspectedQueue> queues = this.inspector.queues();
		assertThat(queues).extracting(InspectedQueue::name).containsExactly("elsewhere", "nowhere", QUEUE);
		assertThat(queues.get(0).dispatched()).isTrue();
		assertThat(queues.get(1).discovered()).isTrue();
		assertThat(queues.get(1).snapshot().stats().ready()).isEqualTo(1);
		assertThat(queues.get(2).handled()).isTrue();
		assertThat(this.inspector.exists("nowhere")).isTrue();
		assertThat(this.inspector.exists("absent")).isFalse();
		assertThat(this.inspector.exists("{bad}")).isFalse();
	}

	@Test
	void listsOnlyTheKnownQueuesWithoutDiscovery() {
		this.dispatcher.dispatch(JobRequest.of("work", "lost").queue("nowhere").build());
		this.inspector.setDiscoveryInterval(Duration.ofSeconds(-1));
		assertThat(this.inspector.queueNames()).containsExactly("elsewhere", QUEUE);
		assertThat(this.inspector.exists("nowhere")).isFalse();
	}

	@Test
	void findsAQueueOnlyRedisHoldsInABigKeySpaceOverRoundsOfBoundedScans() {
		this.template.execute(new DefaultRedisScript<>(
				"for i = 1, 50000 do redis.call('SET', 'filler:' .. i, 'x') end return 1", Long.class), List.of());
		this.dispatcher.dispatch(JobRequest.of("work", "lost").queue("nowhere").build());
		int rounds = 0;
		boolean found = false;
		while (!found && rounds < 100) {
			long before = scanCalls();
			found = this.inspector.queueNames().contains("nowhere");
			rounds++;
			assertThat(scanCalls() - before).as("SCAN calls of one round").isBetween(1L, 10L);
		}
		assertThat(found).isTrue();
		// found, it stays listed while the next pass goes on
		for (int i = 0; i < 10; i++) {
			assertThat(this.inspector.queueNames()).contains("nowhere");
		}
	}

	private long scanCalls() {
		return calls("scan");
	}

	private long calls(String command) {
		Properties stats = this.template
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		String calls = stats.getProperty("cmdstat_" + command, "calls=0,");
		return Long.parseLong(calls.substring(calls.indexOf("calls=") + 6, calls.indexOf(',')));
	}

	@Test
	void pagesJobsByStateWithTheirEnvelopeAttemptsLeaseAndError() {
		this.dispatcher.dispatch(JobRequest.of("work", "first").id("r1").build());
		this.dispatcher.dispatch(JobRequest.of("work", "second").id("r2").build());
		this.dispatcher.dispatch(JobRequest.of("work", "third").id("r3").build());
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("d1").delay(Duration.ofHours(1)).build());
		ReservedJob running = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		ReservedJob dying = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.listener.getLeaseOperations()
			.fail(QUEUE, dying.lease(), "java.lang.IllegalStateException: <script>alert(1)</script>", null);

		JobPage ready = this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(ready.total()).isEqualTo(1);
		assertThat(ready.jobs()).extracting(JobView::id).containsExactly("r3");
		assertThat(ready.jobs().get(0).payload()).isEqualTo("third");
		assertThat(ready.jobs().get(0).at()).isNotNull();

		JobPage delayed = this.inspector.jobs(QUEUE, JobStatus.State.DELAYED, 0, 10);
		assertThat(delayed.jobs()).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("d1");
			assertThat(job.at()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
			assertThat(job.job()).isEqualTo("work");
		});

		JobView reserved = this.inspector.jobs(QUEUE, JobStatus.State.RESERVED, 0, 10).jobs().get(0);
		assertThat(reserved.id()).isEqualTo(running.id());
		assertThat(reserved.lease()).isEqualTo(running.lease().token());
		assertThat(reserved.attempts()).isEqualTo(1);

		JobView dead = this.inspector.job(QUEUE, dying.id());
		assertThat(dead).isNotNull();
		assertThat(dead.state()).isEqualTo(JobStatus.State.DEAD);
		assertThat(dead.error()).isEqualTo("java.lang.IllegalStateException: <script>alert(1)</script>");
		assertThat(dead.attempts()).isEqualTo(1);
		assertThat(dead.lease()).isNull();
		assertThat(dead.envelope()).isInstanceOfSatisfying(Map.class,
				(envelope) -> assertThat(envelope).containsEntry("job", "work"));
		assertThat(this.inspector.job(QUEUE, "gone")).isNull();
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, JobQueueInspector.MAX_PAGE_SIZE + 1));
	}

	@Test // GH-36
	void pagesTheDelayedJobsByDueTimeThenTheParkedOnesInLineOrderWithoutATime() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("d1").delay(Duration.ofHours(2)).build());
		this.dispatcher.dispatch(JobRequest.of("work", "sooner").id("d2").delay(Duration.ofHours(1)).build());
		for (String id : List.of("holder", "z", "y", "x")) {
			this.dispatcher.dispatch(JobRequest.of("work", id).id(id).build());
		}
		Gates exclusive = new Gates("order", "work", 0, 0, null);
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 4, Duration.ofMinutes(1)).jobs();
		GateOperations gates = this.listener.getGateOperations();
		assertThat(gates.admit(QUEUE, reserved.get(0).lease(), exclusive, Duration.ofMinutes(1))).isZero();
		for (ReservedJob job : reserved.subList(1, 4)) {
			assertThat(gates.admit(QUEUE, job.lease(), exclusive, Duration.ofMinutes(1)))
				.isEqualTo(GateOperations.PARKED);
		}
		// data model 7 keeps parked jobs out of delayed, but while a queue is upgraded
		// from model 6 delayed may still hold some at +inf
		this.template.opsForZSet().add(this.keys.delayed(), "y", Double.POSITIVE_INFINITY);

		JobPage page = this.inspector.jobs(QUEUE, JobStatus.State.DELAYED, 0, 10);
		assertThat(page.total()).isEqualTo(5);
		assertThat(page.jobs()).extracting(JobView::id).containsExactly("d2", "d1", "z", "y", "x");
		assertThat(page.jobs().subList(0, 2)).allSatisfy((job) -> assertThat(job.at()).isNotNull());
		assertThat(page.jobs().subList(2, 5)).allSatisfy((job) -> assertThat(job.at()).isNull());
		assertThat(this.inspector.jobs(QUEUE, JobStatus.State.DELAYED, 1, 3).jobs()).extracting(JobView::id)
			.containsExactly("d1", "z", "y");
	}

	@Test
	void pagesReadyJobsOfEveryLevelAndGroupHighestLevelFirst() {
		this.dispatcher.dispatch(JobRequest.of("work", "plain").id("p1").build());
		this.dispatcher.dispatch(JobRequest.of("work", "low").id("l1").priority(1).build());
		this.dispatcher.dispatch(JobRequest.of("work", "urgent").id("u1").priority(9).build());
		this.dispatcher.dispatch(JobRequest.of("work", "tenant").id("g1").group("acme").build());
		this.dispatcher.dispatch(JobRequest.of("work", "plain").id("p2").build());

		JobPage all = this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(all.total()).isEqualTo(5);
		assertThat(all.jobs()).extracting(JobView::id).containsExactly("u1", "g1", "p1", "p2", "l1");
		// pages that span two places
		assertThat(this.inspector.jobs(QUEUE, JobStatus.State.READY, 1, 2).jobs()).extracting(JobView::id)
			.containsExactly("g1", "p1");
		assertThat(this.inspector.jobs(QUEUE, JobStatus.State.READY, 3, 10).jobs()).extracting(JobView::id)
			.containsExactly("p2", "l1");
	}

	@Test // GH-36
	void theReadyPageCountsAndListsOnlyTheEntriesThatStandForAReadyJob() {
		for (String id : List.of("a", "b", "c")) {
			this.dispatcher.dispatch(JobRequest.of("work", id).id(id).build());
		}
		// taken out of line: each leaves its entry in the ready list, counted stale
		this.operations.reschedule(QUEUE, "b", Due.after(Duration.ofHours(1)));
		this.operations.cancel(QUEUE, "c");
		JobPage page = this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(page.total()).isEqualTo(1);
		assertThat(page.jobs()).extracting(JobView::id).containsExactly("a");
		// back in line, behind its stale entry: shown once
		this.operations.trigger(QUEUE, "b");
		page = this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10);
		assertThat(page.total()).isEqualTo(2).isEqualTo(this.operations.stats(QUEUE).ready());
		assertThat(page.jobs()).extracting(JobView::id).containsExactly("a", "b");
	}

	@Test
	void showsTheStackTraceOfAFailureWithOneJobOnlyWhileItsErrorIsTheLast() {
		this.dispatcher.dispatch(JobRequest.of("work", "x").id("t1").build());
		String trace = "java.lang.IllegalStateException: boom\n\tat shop.Orders.place(Orders.java:42)";
		this.listener.getLeaseOperations()
			.fail(QUEUE, reserveOne().lease(), "java.lang.IllegalStateException: boom", trace, Duration.ZERO);
		JobView failed = this.inspector.job(QUEUE, "t1");
		assertThat(failed).isNotNull();
		assertThat(failed.stackTrace()).isEqualTo(trace);
		assertThat(this.inspector.jobs(QUEUE, JobStatus.State.READY, 0, 10).jobs()).singleElement()
			.satisfies((job) -> assertThat(job.stackTrace()).as("not carried by pages").isNull());
		// a lease that runs out writes its error as migrate.lua does, and leaves the
		// trace
		var redis = this.operations.getStore().getTemplate().opsForHash();
		String errors = this.operations.getStore().keys(QUEUE).errors();
		redis.put(errors, "t1", "Lease expired on attempt 1: the worker died or stalled");
		assertThat(this.inspector.job(QUEUE, "t1").stackTrace()).as("the trace of an earlier failure").isNull();
		redis.put(errors, "t1", "java.lang.IllegalStateException: boom");
		// a failure without a trace replaces the error and removes the earlier trace
		this.listener.getLeaseOperations()
			.fail(QUEUE, reserveOne().lease(), "Timed out after PT1S: the handler was interrupted", Duration.ZERO);
		JobView timedOut = this.inspector.job(QUEUE, "t1");
		assertThat(timedOut.error()).startsWith("Timed out");
		assertThat(timedOut.stackTrace()).isNull();
		assertThat(this.operations.getStore()
			.getTemplate()
			.opsForHash()
			.hasKey(this.operations.getStore().keys(QUEUE).traces(), "t1")).isFalse();
		// a completed job leaves no trace behind
		this.listener.getLeaseOperations()
			.fail(QUEUE, reserveOne().lease(), "java.lang.IllegalStateException: boom", trace, Duration.ZERO);
		this.listener.getLeaseOperations().ack(QUEUE, List.of(reserveOne().lease()));
		assertThat(this.operations.getStore().getTemplate().hasKey(this.operations.getStore().keys(QUEUE).traces()))
			.isFalse();
	}

	private ReservedJob reserveOne() {
		return this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
	}

	@Test
	void searchesByIdJobNameAndErrorAcrossQueues() {
		this.dispatcher.dispatch(JobRequest.of("work", "a").id("order-42").build());
		this.dispatcher.dispatch(JobRequest.of("work", "b").id("order-43").queue("nowhere").build());
		this.dispatcher.dispatch(JobRequest.of("remote", "c").id("close-auction:7").build());
		ReservedJob dying = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.listener.getLeaseOperations().fail(QUEUE, dying.lease(), "java.net.SocketTimeoutException: slow", null);

		assertThat(this.inspector.search(SearchBy.ID, "order-42", 10).jobs()).extracting(JobView::id)
			.containsExactly("order-42");
		SearchResult orders = this.inspector.search(SearchBy.ID, "order-", 10);
		assertThat(orders.jobs()).extracting(JobView::queue, JobView::id)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(QUEUE, "order-42"),
					org.assertj.core.groups.Tuple.tuple("nowhere", "order-43"));
		assertThat(orders.complete()).isTrue();
		assertThat(this.inspector.search(SearchBy.ID, "close-auction:7", 10).jobs()).extracting(JobView::queue)
			.containsExactly("elsewhere");
		assertThat(this.inspector.search(SearchBy.JOB, "remote", 10).jobs()).extracting(JobView::id)
			.containsExactly("close-auction:7");
		assertThat(this.inspector.search(SearchBy.ERROR, "SocketTimeoutException", 10).jobs())
			.extracting(JobView::id, JobView::state)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("order-42", JobStatus.State.DEAD));
		assertThat(this.inspector.search(SearchBy.ID, "order-", 1).jobs()).hasSize(1);
	}

	@Test // GH-35
	void aSearchReadsAtMostItsBoundOfEntriesWhateverItFinds() {
		fillJobAndErrorHashes(30_000);
		for (SearchBy by : SearchBy.values()) {
			long before = hscanCalls();
			SearchResult result = this.inspector.search(by, "nothing-like-it", 10);
			assertThat(result.jobs()).isEmpty();
			assertThat(result.complete()).as("the jobs hash was not read to its end").isFalse();
			// 200 entries a call
			assertThat(hscanCalls() - before).as("HSCAN calls by " + by)
				.isLessThanOrEqualTo(JobQueueInspector.MAX_SEARCH_READS / 200);
		}
	}

	@Test // GH-35
	void theSearchesOfAnInstanceReadAtMostTheirBoundPerSecondAllTogether() {
		fillJobAndErrorHashes(30_000);
		long before = hscanCalls();
		long start = System.nanoTime();
		for (int i = 0; i < 20; i++) {
			this.inspector.search(SearchBy.JOB, "nothing-like-it", 10);
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		assertThat((hscanCalls() - before) * 200).as("entries read in %.2f s", seconds)
			.isLessThanOrEqualTo((long) (JobQueueInspector.MAX_SEARCH_READS_PER_SECOND * (1 + seconds)));
	}

	// as many ids in the jobs and errors hashes, none of them in line
	private void fillJobAndErrorHashes(int entries) {
		String script = "for i = 1, tonumber(ARGV[1]) do "
				+ "redis.call('HSET', KEYS[1], 'filler-' .. i, '{\"job\":\"work\"}') "
				+ "redis.call('HSET', KEYS[2], 'filler-' .. i, 'java.io.IOException: x') end return 1";
		this.template.execute(new DefaultRedisScript<>(script, Long.class),
				List.of(this.keys.jobs(), this.keys.errors()), Integer.toString(entries));
	}

	private long hscanCalls() {
		return calls("hscan");
	}

	@Test // GH-36
	void readsTheDeadJobsThatDiedByACutoff() {
		for (int i = 0; i < 3; i++) {
			kill("j" + i);
		}
		Instant cutoff = this.inspector.latestDeath(QUEUE);
		assertThat(cutoff).isNotNull();
		this.operations.retryDead(QUEUE, List.of("j2"));
		// the Redis clock passes the cutoff before it dies again
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> this.operations.status(QUEUE, "j2").redisTime().isAfter(cutoff));
		ReservedJob again = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.listener.getLeaseOperations().fail(QUEUE, again.lease(), "again", null);
		assertThat(this.inspector.deadJobs(QUEUE, null, null, 10).jobs()).extracting(JobView::id)
			.containsExactly("j2", "j1", "j0");
		assertThat(this.inspector.deadJobs(QUEUE, null, null, 10, cutoff).jobs()).extracting(JobView::id)
			.containsExactly("j1", "j0");
	}

	private void kill(String id) {
		this.dispatcher.dispatch(JobRequest.of("work", "p").id(id).build());
		ReservedJob job = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.listener.getLeaseOperations().fail(QUEUE, job.lease(), "java.io.IOException: " + id, null);
	}

	@Test // GH-35
	void theReadsOfARequestAnswerWithinTheReadTimeoutWhileRedisIsStalled() {
		this.inspector.setReadTimeout(Duration.ofSeconds(1));
		assertThat(this.inspector.read(this.inspector::queues)).isNotEmpty();
		this.redis.pause();
		try {
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> this.inspector.read(this.inspector::queues))
				.withMessageContaining("did not answer");
			// Lettuce's command timeout is a minute
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		}
		finally {
			this.redis.resume();
		}
		assertThat(this.inspector.read(this.inspector::queues)).isNotEmpty();
	}

	@Test
	void filtersDeadJobsByJobNameAndError() {
		for (int i = 0; i < 4; i++) {
			this.dispatcher.dispatch(JobRequest.of("work", "p").id("j" + i).build());
			ReservedJob job = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
			this.listener.getLeaseOperations()
				.fail(QUEUE, job.lease(), (i % 2 == 0) ? "java.io.IOException: x" : "other", null);
		}
		SearchResult io = this.inspector.deadJobs(QUEUE, "work", "IOException", 10);
		assertThat(io.jobs()).extracting(JobView::id).containsExactly("j2", "j0");
		assertThat(io.complete()).isTrue();
		assertThat(this.inspector.deadJobs(QUEUE, "remote", null, 10).jobs()).isEmpty();
		assertThat(this.inspector.deadJobs(QUEUE, null, null, 3).jobs()).hasSize(3);
	}

	@Test
	void countsCompletedFailedAndDeadJobsPerMinuteAndHourInRedis() {
		for (String payload : List.of("a", "b", "c")) {
			this.dispatcher.dispatch("work", payload);
		}
		List<ReservedJob> reserved = this.listener.reserve(QUEUE, 3, Duration.ofMinutes(1)).jobs();
		this.listener.getLeaseOperations().ack(QUEUE, List.of(reserved.get(0).lease(), reserved.get(1).lease()));
		this.listener.getLeaseOperations().fail(QUEUE, reserved.get(2).lease(), "boom", null);
		QueueStatistics statistics = this.inspector.statistics(QUEUE);
		assertThat(statistics.minutes()).hasSize(60);
		assertThat(statistics.hours()).hasSize(JobQueueInspector.DEFAULT_STATISTICS_HOURS);
		QueueStatistics.Bucket minute = statistics.minutes().get(59);
		QueueStatistics.Bucket hour = statistics.hours().get(JobQueueInspector.DEFAULT_STATISTICS_HOURS - 1);
		// the minute may have turned between the acknowledgement and the read
		long completed = statistics.minutes().stream().mapToLong(QueueStatistics.Bucket::completed).sum();
		assertThat(completed).isEqualTo(2);
		assertThat(statistics.minutes().stream().mapToLong(QueueStatistics.Bucket::dead).sum()).isEqualTo(1);
		assertThat(statistics.minutes().stream().mapToLong(QueueStatistics.Bucket::failed).sum()).isEqualTo(1);
		assertThat(minute.start()).isBefore(Instant.now().plusSeconds(1));
		assertThat(statistics.hours().stream().mapToLong(QueueStatistics.Bucket::completed).sum()).isEqualTo(2);
		assertThat(hour.start()).isAfter(Instant.now().minus(Duration.ofHours(2)));
		// the minutes alone, as the dashboard's list of queues reads them: the same
		// buckets, unless the minute turned between the two reads
		List<QueueStatistics.Bucket> minutes = this.inspector.minutes(QUEUE);
		assertThat(minutes).hasSize(60);
		assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::completed).sum()).isEqualTo(2);
		assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::failed).sum()).isEqualTo(1);
		assertThat(minutes.stream().mapToLong(QueueStatistics.Bucket::dead).sum()).isEqualTo(1);
	}

	@Test // GH-36
	void aDeathOfAnyCauseCountsItsLastAttemptAsFailedAndARunThatCompletesLateTakesItsDeathBack() {
		// a lease that expires on the job's last attempt, after its run started
		this.dispatcher.dispatch(JobRequest.of("work", "p").id("expired").build());
		ReservedJob expired = this.listener.reserve(QUEUE, 1, Duration.ofMillis(50)).jobs().get(0);
		// a renewal confirms the run started: its lease's expiry uses its attempt
		assertThat(this.listener.getLeaseOperations()
			.extend(QUEUE, List.of(expired.lease()), List.of(), Duration.ofMillis(50), Duration.ofMillis(50)))
			.isEmpty();
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> this.listener.migrate(QUEUE).expiredLeases() == 1);
		assertThat(counts()).as("completed, failed, dead").containsExactly(0L, 1L, 1L);
		// a shutdown that interrupts the last attempt
		this.dispatcher.dispatch(JobRequest.of("work", "p").id("interrupted").build());
		ReservedJob interrupted = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		assertThat(this.listener.getLeaseOperations().release(QUEUE, List.of(interrupted.lease()), false)).isZero();
		// an id whose data was deleted outside Redq
		this.dispatcher.dispatch(JobRequest.of("work", "p").id("missing").build());
		this.template.opsForHash().delete(this.keys.jobs(), "missing");
		assertThat(this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).missing()).containsExactly("missing");
		assertThat(this.inspector.deadJobs(QUEUE, null, null, 10).jobs()).hasSize(3);
		assertThat(counts()).containsExactly(0L, 3L, 3L);
		// the run whose lease expired completes after all: the job completed, not died
		assertThat(this.listener.getLeaseOperations().ack(QUEUE, List.of(expired.lease()))).isEmpty();
		assertThat(this.operations.status(QUEUE, "expired").state()).isEqualTo(JobStatus.State.NONE);
		assertThat(counts()).containsExactly(1L, 2L, 2L);
	}

	/**
	 * Return the completed jobs, failed attempts and dead jobs the hour ring counts, read
	 * from Redis (the inspector's statistics are read at most once a second).
	 */
	private List<Long> counts() {
		long[] counts = new long[3];
		this.template.<String, String>opsForHash().entries(this.keys.stats()).forEach((field, value) -> {
			if (field.startsWith("h")) {
				String[] bucket = value.split(" ");
				for (int i = 0; i < counts.length; i++) {
					counts[i] += Long.parseLong(bucket[i + 1]);
				}
			}
		});
		return List.of(counts[0], counts[1], counts[2]);
	}

	@Test
	void aBucketLeftFromAnOlderRoundOfItsRingStartsAgainAndTheRetentionSizesTheHourRing() {
		this.inspector.setStatisticsRetention(Duration.ofHours(24));
		this.inspector.applyStatisticsRetention();
		// every minute slot and hour slot holds counts from a day ago
		long minute = Instant.now().toEpochMilli() / 60_000;
		for (int i = 0; i < 60; i++) {
			this.template.opsForHash().put(this.keys.stats(), "m" + i, (minute - 24 * 60) + " 7 7 7");
		}
		for (int i = 0; i < 24; i++) {
			this.template.opsForHash().put(this.keys.stats(), "h" + i, (minute / 60 - 24) + " 7 7 7");
		}
		this.dispatcher.dispatch("work", "a");
		ReservedJob job = this.listener.reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.listener.getLeaseOperations().ack(QUEUE, List.of(job.lease()));
		QueueStatistics statistics = this.inspector.statistics(QUEUE);
		assertThat(statistics.hours()).hasSize(24);
		assertThat(statistics.minutes().stream().mapToLong(QueueStatistics.Bucket::completed).sum()).isEqualTo(1);
		assertThat(statistics.hours().stream().mapToLong(QueueStatistics.Bucket::completed).sum()).isEqualTo(1);
		assertThat(this.inspector.minutes(QUEUE).stream().mapToLong(QueueStatistics.Bucket::completed).sum())
			.as("the minutes alone leave out the counts of an older round too")
			.isEqualTo(1);
		assertThat(this.template.opsForHash().size(this.keys.stats())).as("the rings and the retention")
			.isEqualTo(60 + 24 + 1);
	}

	@Test
	void recentSnapshotsReadRedisAtMostOncePerQueueAndSecond() throws Exception {
		this.dispatcher.dispatch("work", "x");
		long before = ScriptExecutions.count(this.redis);
		long start = System.nanoTime();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<QueueSnapshot>> snapshots = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				snapshots.add(executor.submit(() -> this.inspector.recentSnapshot(QUEUE)));
			}
			for (Future<QueueSnapshot> snapshot : snapshots) {
				assertThat(snapshot.get().stats().ready()).isEqualTo(1);
			}
		}
		finally {
			executor.shutdown();
		}
		long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
		assertThat(ScriptExecutions.count(this.redis) - before).isLessThanOrEqualTo(seconds + 1);
	}

}
