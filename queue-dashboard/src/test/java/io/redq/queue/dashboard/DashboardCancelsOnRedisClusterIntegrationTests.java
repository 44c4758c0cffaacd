package io.redq.queue.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The dashboard's cancels of a batch and of a chain while the master of its keys takes no
 * writes ({@code CLIENT PAUSE WRITE}): the read of the batch or chain passes, and the
 * cancel answers 503 within {@code redq.dispatcher.timeout} (500 ms here) instead of
 * waiting for the pause or the Redis command timeout (a minute here), saying that the
 * cancel may be done in part and that cancelling again finishes it; on a three-master
 * Redis Cluster started by the test.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false", "spring.data.redis.timeout=60s", "redq.dispatcher.timeout=500ms" })
@DirtiesContext
class DashboardCancelsOnRedisClusterIntegrationTests {

	private static final Keyspace KEYSPACE = new Keyspace("redq");

	/** Well above the dispatcher's timeout, well below the pause. */
	private static final Duration FAST = Duration.ofSeconds(10);

	/** How long a master takes no writes unless unpaused: longer than {@link #FAST}. */
	private static final Duration PAUSE = Duration.ofSeconds(30);

	private static RedisCluster cluster;

	@LocalServerPort
	private int port;

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private RedisJobQueueOperations operations;

	private RestTestClient client;

	@DynamicPropertySource
	static void cluster(DynamicPropertyRegistry registry) {
		// no master is taken for failed while a test pauses it
		cluster = RedisCluster.start(3, 0, "--cluster-node-timeout", "300000");
		registry.add("spring.data.redis.cluster.nodes",
				() -> cluster.masters()
					.stream()
					.map((master) -> master.host() + ":" + master.port())
					.collect(Collectors.joining(",")));
	}

	@AfterAll
	static void closeCluster() {
		cluster.close();
	}

	@BeforeEach
	void connect() {
		cluster.masters().forEach(RedisServer::flushAll);
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/redq").build();
	}

	@AfterEach
	void unpause() {
		cluster.masters().forEach((master) -> master.command("CLIENT", "UNPAUSE"));
	}

	@Test // GH-41
	void cancellingABatchWhoseMasterTakesNoWritesAnswers503WithinTheTimeoutAndCancellingAgainFinishesIt() {
		BatchResult batch = this.dispatcher
			.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("work", "a").build())).build());
		String id = batch.batchId();
		String member = batch.members().get(0).id();
		RedisServer master = cluster.masterOf(KEYSPACE.batch(id).meta());
		master.command("CLIENT", "PAUSE", Long.toString(PAUSE.toMillis()), "WRITE");
		assertUnavailableWithinTheTimeout("/api/batches/" + id + "/cancel", "cancel batch '" + id + "'");
		master.command("CLIENT", "UNPAUSE");
		assertNothingLogged();
		// the cancel held by the pause may run as it ends: cancelling again finishes it
		post("/api/batches/" + id + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, member).state()).isEqualTo(JobStatus.State.NONE);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/batches/" + id).expectStatus().isOk().expectBody().json("""
				{"batch": {"state": "CANCELLED", "pending": 0, "cancelled": 1}}""");
	}

	@Test // GH-41
	void cancellingAChainWhoseMasterTakesNoWritesAnswers503WithinTheTimeoutAndCancellingAgainFinishesIt() {
		ChainResult chain = this.dispatcher.dispatchChain(
				ChainRequest.of(JobRequest.of("work", "a").build(), JobRequest.of("work", "b").build()).build());
		String id = chain.chainId();
		String first = chain.stepIds().get(0);
		RedisServer master = cluster.masterOf(KEYSPACE.chain(id));
		master.command("CLIENT", "PAUSE", Long.toString(PAUSE.toMillis()), "WRITE");
		assertUnavailableWithinTheTimeout("/api/chains/" + id + "/cancel", "cancel chain '" + id + "'");
		master.command("CLIENT", "UNPAUSE");
		assertNothingLogged();
		// the cancel held by the pause may run as it ends: cancelling again finishes it
		post("/api/chains/" + id + "/cancel").expectStatus().isOk().expectBody().json("""
				{"action": "cancel", "jobs": 1}""");
		assertThat(this.operations.status(QUEUE, first).state()).isEqualTo(JobStatus.State.NONE);
		this.operations.getBatchOperations().handOver(QUEUE);
		get("/api/chains/" + id).expectStatus().isOk().expectBody().json("""
				{"chain": {"state": "CANCELLED"},
				"steps": [{"state": "CANCELLED"}, {"state": "CANCELLED"}]}""");
	}

	private void assertUnavailableWithinTheTimeout(String path, String asked) {
		assertTimeoutPreemptively(FAST,
				() -> post(path).expectStatus()
					.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
					.expectBody()
					.jsonPath("$.error")
					.value((String error) -> assertThat(error).startsWith("Redis is unavailable")
						.contains("Redis did not answer within 500 ms when asked to " + asked)
						.contains("may be cancelled in part")
						.contains("cancel it again")));
	}

	private void assertNothingLogged() {
		get("/api/actions?count=1").expectStatus().isOk().expectBody().json("[]");
	}

	private ResponseSpec get(String path) {
		return this.client.get().uri(path).exchange();
	}

	private ResponseSpec post(String path) {
		return this.client.post().uri(path).headers((headers) -> {
			headers.set(DashboardGuard.CHANGE_HEADER, "1");
			headers.setOrigin("http://localhost:" + this.port);
		}).exchange();
	}

}
