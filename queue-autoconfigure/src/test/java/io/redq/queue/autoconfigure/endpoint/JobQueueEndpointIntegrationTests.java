package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.inspect.InstanceHeartbeat;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.ShardView;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.ProgressFields;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import static io.redq.queue.autoconfigure.endpoint.EndpointTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every operation of the {@code redq} endpoint over HTTP, with write access allowed, on a
 * real Redis.
 *
 * @author Redq team
 */
@SpringBootTest(classes = EndpointTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redq", "management.endpoint.redq.access=unrestricted",
				"redq.listener.auto-startup=false", "redq.jobs.report.queue=reports", "redq.queues.reports.shards=2",
				"spring.web.error.include-message=always", "redq.completed.max-size=2" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class JobQueueEndpointIntegrationTests extends EndpointHttpSupport {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	@Autowired
	private InstanceHeartbeat heartbeat;

	@Autowired
	private JobQueueInspector inspector;

	@Test
	void listsEveryQueueWithItsCountsPerPriorityAndGroupsOldestAgeAndPauseState() {
		this.dispatcher.dispatch("work", "a");
		this.dispatcher.dispatch(JobRequest.of("work", "urgent").priority(8).build());
		this.dispatcher.dispatch("work", "b");
		this.dispatcher.dispatch(JobRequest.of("work", "tenant").group("acme").build());
		this.dispatcher.dispatch(JobRequest.of("work", "later").delay(Duration.ofHours(1)).build());
		this.operations.pause("reports");
		// counts are shared by every caller and at most a second old: an earlier test's
		// may still be served
		await().atMost(DEADLINE).untilAsserted(() -> {
			get("").expectStatus().isOk().expectBody().json("""
					{"queues": {
						"ops": {"ready": 4, "delayed": 1, "reserved": 0, "dead": 0, "paused": false,
							"readyByPriority": {"8": 1, "5": 3}, "readyGroups": 1},
						"reports": {"ready": 0, "delayed": 0, "reserved": 0, "dead": 0, "paused": true}}}
					""").jsonPath("$.queues.ops.oldestReadyAge").isNotEmpty();
			get("/ops").expectStatus().isOk().expectBody().json("""
					{"ready": 4, "delayed": 1, "paused": false}""");
		});
		get("/unknown").expectStatus().isNotFound();
	}

	@Test
	void describesEachShardOfAQueueOnRequestWhereItLivesAsTheInspectorDoes() {
		for (int i = 0; i < 10; i++) {
			this.dispatcher.dispatch(JobRequest.of("report", "r" + i).id("r" + i).build());
		}
		Map<?, ?> reports = get("/reports?shards=true").expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
		assertThat(reports.get("ready")).isEqualTo(10);
		List<?> shards = (List<?>) reports.get("shards");
		assertThat(shards).hasSize(2);
		assertThat(shards.stream().mapToInt((shard) -> (Integer) ((Map<?, ?>) shard).get("ready")).sum()).isEqualTo(10);
		List<ShardView> places = this.inspector.shards("reports");
		for (int i = 0; i < places.size(); i++) {
			Map<?, ?> shard = (Map<?, ?>) shards.get(i);
			assertThat(shard.get("hashTag")).isEqualTo(places.get(i).hashTag());
			// one Redis: no slot, no master
			assertThat(shard.get("slot")).isNull();
			assertThat(shard.get("master")).isNull();
			assertThat(shard.get("ready")).isEqualTo((int) places.get(i).snapshot().stats().ready());
		}
		assertThat(places).extracting(ShardView::hashTag).first().isEqualTo("{reports}");
		get("/ops?shards=true").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.shards.length()")
			.isEqualTo(1)
			.jsonPath("$.shards[0].hashTag")
			.isEqualTo("{ops}");
		get("/ops").expectStatus().isOk().expectBody().jsonPath("$.shards").doesNotExist();
	}

	@Test // GH-35
	void theListOfQueuesReadsEachQueuesCountsAtMostOncePerSecondHoweverOftenAsked() {
		int queues = this.client.get()
			.uri("")
			.exchange()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody()
			.get("queues") instanceof Map<?, ?> map ? map.size() : 0;
		assertThat(queues).isPositive();
		long before = ScriptExecutions.count(RedisServerInitializer.sharedServer());
		long start = System.nanoTime();
		for (int i = 0; i < 30; i++) {
			get("").expectStatus().isOk();
		}
		long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
		// and this instance's heartbeat, every 10 seconds
		assertThat(ScriptExecutions.count(RedisServerInitializer.sharedServer()) - before)
			.isLessThanOrEqualTo(queues * (seconds + 1) + 1 + seconds / 10);
	}

	@Test // GH-35
	void noChangeAcceptsWhatAFormOfAnotherSiteCanSend() {
		kill("d1");
		String timer = this.dispatcher.schedule("work", "k1", Instant.now().plus(Duration.ofHours(1))).id();
		for (String path : List.of("/ops", "/ops/dead", "/ops/jobs", "/ops/dead/d1", "/ops/jobs/" + timer)) {
			MultiValueMap<String, String> form = new LinkedMultiValueMap<>();
			form.add("paused", "true");
			form.add("ids", "d1");
			form.add("ids", timer);
			// the three content types of a form
			for (MediaType type : List.of(MediaType.APPLICATION_FORM_URLENCODED, MediaType.MULTIPART_FORM_DATA,
					MediaType.TEXT_PLAIN)) {
				this.client.post()
					.uri(path)
					.contentType(type)
					.body(type.equals(MediaType.TEXT_PLAIN) ? "paused=true" : form)
					.exchange()
					.expectStatus()
					.value((status) -> assertThat(status).as("POST %s as %s", path, type).isIn(405, 415));
			}
			// and none: what a script of another site sends without asking first
			// (fetch(url, {method: 'POST', mode: 'no-cors', credentials: 'include'}))
			this.client.post()
				.uri(path)
				.exchange()
				.expectStatus()
				.value((status) -> assertThat(status).as("POST %s without a body", path).isIn(405, 415));
		}
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		assertThat(this.operations.status(QUEUE, timer).state()).isEqualTo(JobStatus.State.DELAYED);
		assertThat(this.operations.status(QUEUE, "d1").state()).isEqualTo(JobStatus.State.DEAD);
	}

	@Test // GH-35
	void takesAtMostOneScriptCallsBatchOfIds() {
		kill("d1");
		StringBuilder ids = new StringBuilder("d1");
		for (int i = 0; i < JobQueueEndpoint.MAX_IDS; i++) {
			ids.append(",x").append(i);
		}
		post("/ops/dead", Map.of("ids", ids.toString())).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value((String message) -> assertThat(message).contains("at most 1000 are taken at once"));
		delete("/ops/dead?ids=" + ids).expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE).dead()).isEqualTo(1);
	}

	@Test // GH-38
	void showsHowFarADeadJobCame() {
		this.dispatcher.dispatch(JobRequest.of("work", "payload p1").id("p1").build());
		ListenerOperations listener = this.operations.getListenerOperations();
		ReservedJob job = listener.reserve(QUEUE, 1, Duration.ofSeconds(30)).jobs().get(0);
		assertThat(listener.getProgressOperations()
			.writeProgress(QUEUE, job.lease(), JobEnvelope.read(job.envelope()).createdAt(), Map
				.of(ProgressFields.FRACTION, "0.4", ProgressFields.MESSAGE, "row 40", ProgressFields.CURSOR, "40")))
			.isTrue();
		listener.getLeaseOperations().fail(QUEUE, job.lease(), "error p1", null);
		get("/ops/dead/p1").expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"id": "p1", "error": "error p1", "progress": {"fraction": 0.4, "message": "row 40", "cursor": "40"}}""");
	}

	@Test // GH-38
	void showsHowFarARunningJobCameAndWhereAnyJobStands() {
		this.dispatcher.dispatch(JobRequest.of("work", "payload r1").id("r1").build());
		get("/ops/jobs/r1").expectStatus().isOk().expectBody().json("""
				{"id": "r1", "job": "work", "state": "READY", "attempts": 0}""").jsonPath("$.progress").doesNotExist();
		ListenerOperations listener = this.operations.getListenerOperations();
		ReservedJob job = listener.reserve(QUEUE, 1, Duration.ofSeconds(30)).jobs().get(0);
		assertThat(listener.getProgressOperations()
			.writeProgress(QUEUE, job.lease(), JobEnvelope.read(job.envelope()).createdAt(), Map
				.of(ProgressFields.FRACTION, "0.25", ProgressFields.MESSAGE, "row 25", ProgressFields.CURSOR, "25")))
			.isTrue();
		get("/ops/jobs/r1").expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"id": "r1", "job": "work", "state": "RESERVED", "attempts": 1,
						"progress": {"fraction": 0.25, "message": "row 25", "cursor": "25"}}""")
			.jsonPath("$.at")
			.isNotEmpty()
			.jsonPath("$.envelope")
			.doesNotExist();
		get("/ops/jobs/unknown").expectStatus().isNotFound();
		get("/unknown/jobs/r1").expectStatus().isNotFound();
	}

	@Test
	void pagesThroughDeadJobsNewestFirstAndShowsOne() {
		for (int i = 1; i <= 5; i++) {
			kill("d" + i);
		}
		get("/ops/dead").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.total")
			.isEqualTo(5)
			.jsonPath("$.jobs.length()")
			.isEqualTo(5);
		get("/ops/dead?offset=1&count=2").expectStatus().isOk().expectBody().json("""
				{"total": 5, "offset": 1, "jobs": [
					{"id": "d4", "job": "work", "attempts": 1, "error": "error d4"},
					{"id": "d3", "job": "work", "attempts": 1, "error": "error d3"}]}
				""").jsonPath("$.jobs[0].diedAt").isNotEmpty().jsonPath("$.jobs[0].envelope").doesNotExist();
		get("/ops/dead?count=101").expectStatus().isBadRequest();
		get("/ops/dead?offset=-1").expectStatus().isBadRequest();
		get("/ops/dead/d2").expectStatus().isOk().expectBody().json("""
				{"id": "d2", "job": "work", "attempts": 1, "error": "error d2",
					"envelope": {"job": "work", "payload": "payload d2"}}""");
		get("/ops/dead/unknown").expectStatus().isNotFound();
		get("/unknown/dead").expectStatus().isNotFound();
		get("/ops/other").expectStatus().isNotFound();
	}

	@Test
	void listsTheLatestCompletedJobs() {
		for (int i = 1; i <= 3; i++) {
			String id = "c" + i;
			this.dispatcher.dispatch(JobRequest.of("work", "payload").id(id).build());
			ReservedJob job = this.operations.getListenerOperations()
				.reserve(QUEUE, 1, Duration.ofSeconds(30))
				.jobs()
				.get(0);
			this.operations.getListenerOperations().getLeaseOperations().ack(QUEUE, List.of(job.lease()));
		}
		get("/ops/completed").expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"jobs": [{"id": "c3"}, {"id": "c2"}]}""")
			.jsonPath("$.jobs.length()")
			.isEqualTo(2)
			.jsonPath("$.jobs[0].completedAt")
			.isNotEmpty();
		get("/unknown/completed").expectStatus().isNotFound();
	}

	@Test
	void retriesOneManyOrEveryDeadJob() {
		for (int i = 1; i <= 5; i++) {
			kill("d" + i);
		}
		post("/ops/dead", Map.of("ids", "d1")).expectStatus().isOk().expectBody().json("""
				{"operation": "retry", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, "d1").state()).isEqualTo(JobStatus.State.READY);
		post("/ops/dead", Map.of("ids", "d1")).expectBody().json("""
				{"operation": "retry", "jobs": 0}""");
		// ids in a JSON body are one string, separated by commas
		post("/ops/dead", Map.of("ids", "d2,d3,unknown")).expectStatus().isOk().expectBody().json("""
				{"operation": "retry", "jobs": 2}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(3, 0, 0, 2));
		post("/ops/dead?ids=d4", null).expectStatus().isOk().expectBody().json("""
				{"operation": "retry", "jobs": 1}""");
		post("/ops/dead", null).expectStatus().isBadRequest();
		post("/ops/dead?confirm=reports", null).expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE)).as("retrying every dead job needs a confirmation")
			.isEqualTo(new QueueStats(4, 0, 0, 1));
		post("/ops/dead?confirm=ops", null).expectStatus().isOk().expectBody().json("""
				{"operation": "retry", "jobs": 1}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(5, 0, 0, 0));
		ReservedJob retried = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofSeconds(30))
			.jobs()
			.get(0);
		assertThat(retried.attempt()).as("fresh attempts").isEqualTo(1);
	}

	@Test
	void deletesOneManyOrEveryDeadJobWithConfirmation() {
		for (int i = 1; i <= 5; i++) {
			kill("d" + i);
		}
		delete("/ops/dead/d1").expectStatus().isOk().expectBody().json("""
				{"operation": "delete", "jobs": 1}""");
		assertThat(this.operations.deadJob(QUEUE, "d1")).isNull();
		assertThat(this.operations.status(QUEUE, "d1").state()).isEqualTo(JobStatus.State.NONE);
		delete("/ops/dead?ids=d2&ids=d3&ids=unknown").expectStatus().isOk().expectBody().json("""
				{"operation": "delete", "jobs": 2}""");
		delete("/ops/dead").expectStatus().isBadRequest();
		delete("/ops/dead?confirm=reports").expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE).dead()).isEqualTo(2);
		delete("/ops/dead?confirm=ops").expectStatus().isOk().expectBody().json("""
				{"operation": "delete", "jobs": 2}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void purgesAQueueOnlyWhenConfirmed() {
		kill("d1");
		this.dispatcher.dispatch("work", "a");
		this.dispatcher.dispatch(JobRequest.of("work", "later").delay(Duration.ofHours(1)).build());
		QueueStats before = this.operations.stats(QUEUE);
		assertThat(before).isEqualTo(new QueueStats(1, 1, 0, 1));
		delete("/ops").expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.isEqualTo("To purge queue 'ops', confirm with the parameter confirm=ops");
		delete("/ops?confirm=reports").expectStatus().isBadRequest();
		assertThat(this.operations.stats(QUEUE)).isEqualTo(before);
		this.operations.pause(QUEUE);
		delete("/ops?confirm=ops").expectStatus().isOk().expectBody().json("""
				{"ready": 0, "delayed": 0, "reserved": 0, "dead": 0, "paused": true}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void pauseInThisApplicationStopsReservationsInAnotherAndLetsRunningJobsFinish() {
		worker().run((context) -> {
			Worker worker = context.getBean(Worker.class);
			this.dispatcher.dispatch("work", "slow");
			assertThat(worker.started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
			post("/ops", Map.of("paused", true)).expectStatus().isOk().expectBody().json("""
					{"paused": true}""");
			assertThat(this.operations.isPaused(QUEUE)).isTrue();
			this.dispatcher.dispatch("work", "after pause");
			worker.release.countDown();
			await().atMost(DEADLINE).until(() -> worker.handled.contains("slow"));
			await().pollDelay(Duration.ofMillis(500)).until(() -> true);
			assertThat(worker.handled).containsExactly("slow");
			assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
			post("/ops", Map.of("paused", false)).expectStatus().isOk().expectBody().json("""
					{"paused": false}""");
			await().atMost(DEADLINE).until(() -> worker.handled.contains("after pause"));
		});
	}

	@Test
	void triggersAndCancelsTimersById() {
		String first = this.dispatcher.schedule("work", "k1", Instant.now().plus(Duration.ofHours(1))).id();
		String second = this.dispatcher.schedule("work", "k2", Instant.now().plus(Duration.ofHours(1))).id();
		post("/ops/jobs", Map.of("ids", first)).expectStatus().isOk().expectBody().json("""
				{"operation": "trigger", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, first).state()).isEqualTo(JobStatus.State.READY);
		assertThat(this.dispatcher.findTimer("work", "k1"))
			.hasValueSatisfying((timer) -> assertThat(timer.remaining()).isEqualTo(Duration.ZERO));
		post("/ops/jobs", Map.of("ids", first)).expectBody().json("""
				{"operation": "trigger", "jobs": 0}""");
		post("/ops/jobs", null).expectStatus().isBadRequest();
		delete("/ops/jobs/" + second).expectStatus().isOk().expectBody().json("""
				{"operation": "cancel", "jobs": 1}""");
		assertThat(this.dispatcher.findTimer("work", "k2")).isEmpty();
		delete("/ops/jobs/" + second).expectBody().json("""
				{"operation": "cancel", "jobs": 0}""");
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 0));
	}

	@Test
	void listsTheLiveInstancesWithTheQueuesTheyConsume() {
		this.heartbeat.beat();
		// read at most once a second: an earlier test's answer may still be served
		await().atMost(DEADLINE)
			.untilAsserted(() -> get("").expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.instances[?(@.id == '%s')].queues[0].queue".formatted(this.heartbeat.getId()))
				.isEqualTo(List.of(QUEUE)));
	}

	@Test
	void servesAQueueThatNoJobOfThisApplicationUsesButRedisHolds() {
		this.dispatcher.dispatch(JobRequest.of("work", "lost").id("lost").queue("nowhere").build());
		get("/nowhere").expectStatus().isOk().expectBody().json("""
				{"ready": 1, "delayed": 0}""");
		delete("/nowhere/jobs/lost").expectStatus().isOk().expectBody().json("""
				{"operation": "cancel", "jobs": 1}""");
	}

	@Test
	void writesToAnUnknownQueueOrSectionAreBadRequests() {
		post("/unknown", Map.of("paused", true)).expectStatus().isBadRequest();
		assertThat(this.operations.isPaused("unknown")).isFalse();
		post("/ops", Map.of()).expectStatus().isBadRequest();
		delete("/unknown?confirm=unknown").expectStatus().isBadRequest();
		post("/unknown/dead", null).expectStatus().isBadRequest();
		post("/ops/other", null).expectStatus().isBadRequest();
		delete("/unknown/jobs/id").expectStatus().isBadRequest();
	}

	private ResponseSpec get(String path) {
		return this.client.get().uri(path).exchange();
	}

	private ResponseSpec post(String path, Map<String, ?> body) {
		RestTestClient.RequestBodySpec request = this.client.post().uri(path).contentType(MediaType.APPLICATION_JSON);
		return ((body != null) ? request.body(body) : request).exchange();
	}

	private ResponseSpec delete(String path) {
		return this.client.delete().uri(path).exchange();
	}

	/**
	 * Another application instance that handles the queue.
	 */
	private static ApplicationContextRunner worker() {
		return JobQueueContextRunner.on(RedisServerInitializer.sharedServer()).withUserConfiguration(Worker.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class Worker {

		final List<String> handled = new CopyOnWriteArrayList<>();

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@QueuedJob(name = "work", queue = QUEUE, maxAttempts = 1)
		void work(String payload) throws InterruptedException {
			if (payload.equals("slow")) {
				this.started.countDown();
				this.release.await();
			}
			this.handled.add(payload);
		}

	}

}
