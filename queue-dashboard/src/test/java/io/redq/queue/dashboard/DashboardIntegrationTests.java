package io.redq.queue.dashboard;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.inspect.InstanceHeartbeat;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.ProgressFields;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard's JSON over HTTP with writes allowed, on a real Redis: what it reads,
 * what each change does, and that bad requests get a clear 4xx and change nothing.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false", "redq.remote-jobs.report.queue=reports" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JobQueueInspector inspector;

	@Autowired
	private InstanceHeartbeat heartbeat;

	@Autowired
	private JobListenerRegistry listeners;

	@BeforeEach
	void setUp() {
		// every listing scans Redis, so that a queue dispatched to just now is listed
		this.inspector.setDiscoveryInterval(Duration.ZERO);
	}

	@Test
	void servesThePageWithAContentSecurityPolicyAndItsAssets() {
		this.client.get().uri("").exchange().expectStatus().isFound().expectHeader().valueEquals("Location", "/redq/");
		this.client.get()
			.uri("/")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_HTML)
			.expectHeader()
			.value("Content-Security-Policy", (policy) -> assertThat(policy).contains("script-src 'self'"));
		this.client.get().uri("/assets/app.js").exchange().expectStatus().isOk();
		this.client.get().uri("/assets/app.css").exchange().expectStatus().isOk();
	}

	@Test
	void listsEveryQueueWithItsCounts() {
		this.dispatcher.dispatch("work", "a");
		this.dispatcher.dispatch(JobRequest.of("work", "b").queue("nowhere").build());
		// counts are shared by every viewer and at most a second old: an earlier test's
		// may still be served
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			get("/api/queues").expectStatus().isOk().expectBody().json("""
					[{"name": "nowhere", "discovered": true, "ready": 1},
					 {"name": "ops", "handled": true, "ready": 1, "paused": false},
					 {"name": "reports", "dispatched": true, "ready": 0}]""");
			get("/api/queues/ops").expectStatus().isOk().expectBody().json("""
					{"name": "ops", "ready": 1}""");
		});
	}

	@Test // GH-40
	@SuppressWarnings("unchecked")
	void listsEachQueuesLastHourAsCountedInRedisAndHowManyLiveInstancesConsumeIt() {
		// two jobs of a queue that no instance consumes, completed by hand
		this.dispatcher.dispatch("report", "q1");
		this.dispatcher.dispatch("report", "q2");
		var listener = this.operations.getListenerOperations();
		listener.getLeaseOperations()
			.ack("reports",
					listener.reserve("reports", 2, Duration.ofMinutes(1))
						.jobs()
						.stream()
						.map(ReservedJob::lease)
						.toList());
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			List<Map<String, Object>> queues = get("/api/queues").expectStatus()
				.isOk()
				.expectBody(List.class)
				.returnResult()
				.getResponseBody();
			assertThat(queues).filteredOn((queue) -> "reports".equals(queue.get("name")))
				.singleElement()
				.satisfies((queue) -> {
					assertThat(queue.get("consumers")).isEqualTo(0);
					Map<String, Object> lastHour = (Map<String, Object>) queue.get("lastHour");
					List<Integer> completed = (List<Integer>) lastHour.get("completed");
					assertThat(completed).hasSize(60);
					assertThat(completed.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
					assertThat((List<Integer>) lastHour.get("failed")).hasSize(60).containsOnly(0);
				});
		});
		get("/api/queues/reports").expectStatus().isOk().expectBody().json("""
				{"name": "reports", "consumers": 0, "lastHour": null}""");
	}

	@Test
	@SuppressWarnings("unchecked")
	void listsTheInstancesWithTheQueuesTheyConsume() {
		this.heartbeat.beat();
		// the instances are read at most once a second, and the applications of the other
		// test classes, cached, are instances too
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			List<Map<String, Object>> instances = get("/api/instances").expectStatus()
				.isOk()
				.expectBody(List.class)
				.returnResult()
				.getResponseBody();
			assertThat(instances).filteredOn((instance) -> this.heartbeat.getId().equals(instance.get("id")))
				.singleElement()
				.satisfies((instance) -> {
					assertThat(instance.get("queues")).isEqualTo(List.of(Map.of("queue", "ops", "concurrency",
							this.listeners.getListenerContainer(QUEUE).getContainerProperties().getConcurrency(),
							"inFlight", 0, "running", false)));
					assertThat(instance.get("heartbeatAt")).isInstanceOf(Long.class);
				});
		});
	}

	@Test
	void showsJobsByStateAndOneJob() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("t1").delay(Duration.ofHours(1)).build());
		get("/api/queues/ops/jobs?state=delayed").expectStatus().isOk().expectBody().json("""
				{"state": "DELAYED", "total": 1, "jobs": [{"id": "t1", "job": "work", "attempts": 0}]}""");
		get("/api/queues/ops/job?id=t1").expectStatus().isOk().expectBody().json("""
				{"id": "t1", "state": "DELAYED", "envelope": {"payload": "later"}}""");
		get("/api/queues/ops/job?id=gone").expectStatus().isNotFound();
		get("/api/search?by=id&text=t1").expectStatus().isOk().expectBody().json("""
				{"jobs": [{"queue": "ops", "id": "t1"}], "complete": true}""");
	}

	@Test // GH-38
	void showsARunningJobsProgress() {
		this.dispatcher.dispatch(JobRequest.of("report", "q1").id("r1").build());
		var listener = this.operations.getListenerOperations();
		ReservedJob job = listener.reserve("reports", 1, Duration.ofMinutes(1)).jobs().get(0);
		assertThat(listener.getProgressOperations()
			.writeProgress("reports", job.lease(), JobEnvelope.read(job.envelope()).createdAt(), Map
				.of(ProgressFields.FRACTION, "0.5", ProgressFields.MESSAGE, "half", ProgressFields.CURSOR, "42")))
			.isTrue();
		get("/api/queues/reports/job?id=r1").expectStatus().isOk().expectBody().json("""
				{"id": "r1", "state": "RESERVED", "progress": {"fraction": 0.5, "message": "half", "cursor": "42"}}""");
	}

	@Test
	void changesJobsAndQueuesThroughPosts() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("t1").delay(Duration.ofHours(1)).build());
		post("/api/queues/ops/job/trigger?id=t1").expectStatus().isOk().expectBody().json("""
				{"action": "trigger", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.READY);
		post("/api/queues/ops/job/reschedule?id=t1&delaySeconds=600").expectStatus().isOk();
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.DELAYED);
		post("/api/queues/ops/job/cancel?id=t1").expectStatus().isOk();
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.NONE);
		post("/api/queues/ops/pause").expectStatus().isOk().expectBody().json("""
				{"paused": true}""");
		post("/api/queues/ops/resume").expectStatus().isOk();
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		get("/api/actions?count=5").expectStatus().isOk().expectBody().json("""
				[{"action": "resume", "queue": "ops", "principal": null},
				 {"action": "pause", "queue": "ops"},
				 {"action": "cancel", "queue": "ops", "target": "t1", "jobs": 1},
				 {"action": "reschedule", "target": "t1"},
				 {"action": "trigger", "target": "t1"}]""").jsonPath("$[0].at").isNumber();
		this.dispatcher.dispatch("work", "x");
		post("/api/queues/ops/purge").expectStatus().isBadRequest();
		post("/api/queues/ops/purge?confirm=reports").expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE).ready()).isEqualTo(1);
		post("/api/queues/ops/purge?confirm=ops").expectStatus().isOk();
		assertThat(this.operations.stats(QUEUE).ready()).isZero();
	}

	@Test
	void retriesAndDeletesDeadJobsOneBySelectionOrAllMatchingInBatches() {
		for (int i = 0; i < 5; i++) {
			kill("d" + i, (i < 3) ? "java.io.IOException: disk" : "java.lang.IllegalStateException: state");
		}
		post("/api/queues/ops/job/retry?id=d0").expectStatus().isOk().expectBody().json("""
				{"jobs": 1}""");
		post("/api/queues/ops/dead/delete?ids=d3").expectStatus().isOk().expectBody().json("""
				{"jobs": 1}""");
		post("/api/queues/ops/dead/retry?error=IOException").expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 3));
		get("/api/queues/ops/dead?error=IOException").expectStatus().isOk().expectBody().json("""
				{"jobs": [{"id": "d2"}, {"id": "d1"}], "complete": true}""");
		post("/api/queues/ops/dead/retry?error=IOException&confirm=ops").expectStatus().isOk().expectBody().json("""
				{"action": "retry", "jobs": 2, "more": false}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 0, 0, 1));
		get("/api/queues/ops/statistics").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.minutes.length()")
			.isEqualTo(60)
			.jsonPath("$.hours.length()")
			.isEqualTo(168)
			.jsonPath("$.minutes[59].at")
			.isNumber();
	}

	@Test // GH-36
	void retryingEveryMatchingDeadJobTakesEachOnceAndEndsThoughTheyDieAgain() {
		for (int i = 0; i < 250; i++) {
			kill("d" + i, "java.io.IOException: disk");
		}
		List<String> retried = new ArrayList<>();
		Long diedBy = null;
		boolean more = true;
		int requests = 0;
		while (more && requests < 10) {
			Map<?, ?> result = post("/api/queues/ops/dead/retry?error=IOException&confirm=ops"
					+ ((diedBy != null) ? "&diedBy=" + diedBy : ""))
				.expectStatus()
				.isOk()
				.expectBody(Map.class)
				.returnResult()
				.getResponseBody();
			requests++;
			diedBy = ((Number) result.get("cutoff")).longValue();
			more = Boolean.TRUE.equals(result.get("more")) && ((Number) result.get("jobs")).longValue() > 0;
			// each job retried fails at once and dies again, later than the cutoff
			Instant cutoff = Instant.ofEpochMilli(diedBy);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.operations.status(QUEUE, "d0").redisTime().isAfter(cutoff));
			for (ReservedJob job : this.operations.getListenerOperations()
				.reserve(QUEUE, 1000, Duration.ofMinutes(1))
				.jobs()) {
				retried.add(job.id());
				this.operations.getListenerOperations()
					.getLeaseOperations()
					.fail(QUEUE, job.lease(), "java.io.IOException: again", null);
			}
		}
		assertThat(retried).as("each dead job retried once").doesNotHaveDuplicates().hasSize(250);
		assertThat(requests).isEqualTo(3);
		assertThat(this.operations.stats(QUEUE).dead()).isEqualTo(250);
	}

	@Test // GH-35
	void refusesAChangeThatAFormOrAScriptOfAnotherSiteCanSend() {
		this.operations.pause(QUEUE);
		// a form of another site: form-encoded, no header of its own, the site's Origin
		this.client.post()
			.uri("/api/queues/ops/resume")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.header(HttpHeaders.ORIGIN, "http://evil.example")
			.exchange()
			.expectStatus()
			.isForbidden()
			.expectBody()
			.jsonPath("$.error")
			.value((String error) -> assertThat(error).contains("Origin: http://evil.example")
				.contains(DashboardGuard.CHANGE_HEADER)
				.contains("server.forward-headers-strategy"));
		// the header with another site's Origin, or none; the page's Origin without it
		this.client.post()
			.uri("/api/queues/ops/resume")
			.header(DashboardGuard.CHANGE_HEADER, "1")
			.header(HttpHeaders.ORIGIN, "http://evil.example")
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.post()
			.uri("/api/queues/ops/resume")
			.header(DashboardGuard.CHANGE_HEADER, "1")
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.post()
			.uri("/api/queues/ops/resume")
			.header(HttpHeaders.ORIGIN, "http://localhost:" + this.port)
			.exchange()
			.expectStatus()
			.isForbidden();
		assertThat(this.operations.isPaused(QUEUE)).isTrue();
		post("/api/queues/ops/resume").expectStatus().isOk();
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
	}

	@Test
	void listsPausesResumesAndTriggersRecurringJobs() {
		get("/api/recurring").expectStatus().isOk().expectBody().json("""
				[{"name": "nightly", "queue": "ops", "paused": false}]""").jsonPath("$[0].nextTick").isNumber();
		post("/api/recurring/nightly/pause").expectStatus().isOk().expectBody().json("""
				{"jobs": 1}""");
		get("/api/recurring").expectBody().json("""
				[{"name": "nightly", "paused": true}]""");
		post("/api/recurring/nightly/resume").expectStatus().isOk();
		post("/api/recurring/nightly/trigger").expectStatus().isOk();
		assertThat(this.operations.stats(QUEUE).ready()).isEqualTo(1);
		post("/api/recurring/weekly/pause").expectStatus().isNotFound();
	}

	@Test
	void badRequestsGetAClearClientErrorAndChangeNothing() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("t1").delay(Duration.ofHours(1)).build());
		get("/api/queues/unknown").expectStatus().isNotFound().expectBody().jsonPath("$.error").isNotEmpty();
		post("/api/queues/unknown/pause").expectStatus().isNotFound();
		assertThat(this.operations.isPaused("unknown")).isFalse();
		get("/api/queues/ops/jobs?state=ready&count=1000000").expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.error")
			.value((String error) -> assertThat(error).contains("count must be between 1 and 100"));
		get("/api/queues/ops/jobs?state=sideways").expectStatus().isBadRequest();
		get("/api/queues/ops/jobs?state=ready&offset=-1").expectStatus().isBadRequest();
		get("/api/queues/ops/job?id=" + "x".repeat(201)).expectStatus().isBadRequest();
		this.client.post()
			.uri(URI.create("http://localhost:" + this.port + "/redq/api/queues/ops/job/cancel?id=t%01"))
			.headers(this::fromThePage)
			.exchange()
			.expectStatus()
			.isBadRequest();
		post("/api/queues/ops/job/explode?id=t1").expectStatus().isBadRequest();
		post("/api/queues/ops/job/reschedule?id=t1").expectStatus().isBadRequest();
		get("/api/search?by=colour&text=x").expectStatus().isBadRequest();
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.DELAYED);
	}

	@Test
	void noWriteThroughAGet() {
		this.dispatcher.dispatch(JobRequest.of("work", "later").id("t1").delay(Duration.ofHours(1)).build());
		for (String path : new String[] { "/api/queues/ops/pause", "/api/queues/ops/purge?confirm=ops",
				"/api/queues/ops/job/cancel?id=t1", "/api/queues/ops/dead/delete?confirm=ops" }) {
			get(path).expectStatus().isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		}
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		assertThat(this.operations.status(QUEUE, "t1").state()).isEqualTo(JobStatus.State.DELAYED);
	}

	private void kill(String id, String error) {
		this.dispatcher.dispatch(JobRequest.of("work", "p").id(id).build());
		var job = this.operations.getListenerOperations().reserve(QUEUE, 1, Duration.ofMinutes(1)).jobs().get(0);
		this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, job.lease(), error, null);
	}

}
