package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.core.JobStatus;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpHeaders;
import org.springframework.test.context.ContextConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox's parked rows in the dashboard, on a real PostgreSQL and a real Redis: read
 * in pages by id, re-sent to the relay or discarded by a change from the page, and never
 * by a form or script of another site.
 *
 * @author Redq team
 */
@SpringBootTest(classes = { DashboardTestApplication.class, OutboxTestDatabase.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.outbox.jdbc.initialize-schema=always", "redq.outbox.relay.max-attempts=1" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
@EnabledIf(value = "io.redq.queue.test.PostgresServer#isAvailable",
		disabledReason = "PostgreSQL is not installed (apt-get install -y postgresql)")
class DashboardParkedRowsIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	@Autowired
	private OutboxTestDatabase.ParkedRows parkedRows;

	@BeforeEach
	void emptyOutbox() {
		this.parkedRows.clear();
	}

	@Test // issue 35, item 3
	void listsParkedRowsInPagesById() {
		long first = this.parkedRows.park("p1");
		long second = this.parkedRows.park("p2");
		long third = this.parkedRows.park("p3");
		get("/api/outbox").expectStatus().isOk().expectBody().json("""
				{"waiting": 0, "parked": 3, "countLimit": 10000}""");
		get("/api/outbox/parked?limit=2").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rows[*].id")
			.isEqualTo(List.of((int) first, (int) second))
			.jsonPath("$.rows[0].queue")
			.isEqualTo(OutboxTestDatabase.QUEUE)
			.jsonPath("$.rows[0].jobNames")
			.isEqualTo(List.of("work"))
			.jsonPath("$.rows[0].jobCount")
			.isEqualTo(1)
			.jsonPath("$.rows[0].attempts")
			.isEqualTo(1)
			.jsonPath("$.rows[0].reason")
			.value((String reason) -> assertThat(reason).contains("WRONGTYPE"))
			.jsonPath("$.next")
			.isEqualTo((int) second);
		get("/api/outbox/parked?limit=2&afterId=" + second).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rows[*].id")
			.isEqualTo(List.of((int) third))
			.jsonPath("$.next")
			.isEmpty();
		get("/api/outbox/parked?limit=101").expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.error")
			.isEqualTo("limit must be between 1 and " + JdbcJobOutbox.MAX_PARKED_PAGE);
	}

	@Test // issue 35, item 3
	void aRowReSentFromThePageGoesBackToTheRelayWhichSendsIt() {
		long row = this.parkedRows.park("p1");
		assertThat(this.operations.status(OutboxTestDatabase.QUEUE, "p1").state()).isEqualTo(JobStatus.State.NONE);
		post("/api/outbox/parked/" + row + "/resend").expectStatus().isOk().expectBody().json("""
				{"action": "resend", "jobs": 1}""");
		await().untilAsserted(() -> assertThat(this.operations.status(OutboxTestDatabase.QUEUE, "p1").state())
			.isEqualTo(JobStatus.State.READY));
		assertThat(this.parkedRows.outbox().parkedRows(0, 10)).isEmpty();
		post("/api/outbox/parked/" + row + "/resend").expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.error")
			.value((String error) -> assertThat(error).contains("re-sent or discarded already"));
		get("/api/actions").expectBody().json("""
				[{"action": "resend parked row", "queue": "redq_outbox_parked", "target": "%d"}]""".formatted(row));
	}

	@Test // issue 35, item 3
	void aRowDiscardedFromThePageIsGoneAndItsJobNeverSent() {
		long row = this.parkedRows.park("p1");
		post("/api/outbox/parked/" + row + "/discard").expectStatus().isOk();
		assertThat(this.parkedRows.outbox().parkedRows(0, 10)).isEmpty();
		assertThat(this.parkedRows.outbox().status().rows()).isZero();
		assertThat(this.operations.status(OutboxTestDatabase.QUEUE, "p1").state()).isEqualTo(JobStatus.State.NONE);
		get("/api/actions").expectBody().json("""
				[{"action": "discard parked row", "target": "%d"}]""".formatted(row));
	}

	@Test // issue 35, items 3 and 8
	void refusesAChangeOfAParkedRowThatAFormOrAScriptOfAnotherSiteCanSend() {
		long row = this.parkedRows.park("p1");
		for (String action : new String[] { "resend", "discard" }) {
			String path = "/api/outbox/parked/" + row + "/" + action;
			assertRefusedFromAnotherSite(path);
			this.client.post()
				.uri(path)
				.header(HttpHeaders.ORIGIN, "http://localhost:" + this.port)
				.exchange()
				.expectStatus()
				.isForbidden();
		}
		assertThat(this.parkedRows.outbox().parkedRows(0, 10)).singleElement()
			.extracting(JdbcJobOutbox.ParkedRow::id)
			.isEqualTo(row);
		get("/api/actions").expectBody().json("[]");
	}

}
