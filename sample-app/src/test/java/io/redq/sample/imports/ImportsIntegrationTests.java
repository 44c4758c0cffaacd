package io.redq.sample.imports;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Imports grouped by tenant: a small tenant is served while a busy one has a backlog, and
 * the busy one never holds more than {@code group-max-running} workers.
 *
 * @author Redq team
 */
@SampleShopTest
class ImportsIntegrationTests {

	private static final int BUSY_ROWS = 60;

	@Autowired
	private ContactImports imports;

	@Autowired
	private JobQueueOperations operations;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void aBusyTenantDoesNotHoldUpTheOthers(@Autowired ApplicationContext context) {
		String busy = "busy-" + System.nanoTime();
		String small = "small-" + System.nanoTime();
		// both imports wait until the queue is resumed: the busy tenant's rows come first
		this.operations.pause("imports");
		try {
			this.imports.start(busy, BUSY_ROWS);
			this.imports.start(small, 1);
		}
		finally {
			this.operations.resume("imports");
		}
		JobTester.of(context).awaitDrained("imports", Duration.ofSeconds(60));
		List<Row> busyRows = rows(busy);
		Row smallRow = rows(small).get(0);
		assertThat(busyRows).hasSize(BUSY_ROWS);
		// the small tenant takes its turn within the first rows, not after the backlog
		long busyBefore = busyRows.stream().filter((row) -> !row.finishedAt().isAfter(smallRow.startedAt())).count();
		assertThat(busyBefore).isLessThan(BUSY_ROWS / 2);
		// redq.queues.imports.group-max-running: 2 of the 4 workers at most
		assertThat(mostAtOnce(busyRows)).isBetween(1, 2);
	}

	private List<Row> rows(String tenant) {
		return this.jdbc.sql("SELECT started_at, finished_at FROM contact WHERE tenant = :tenant")
			.param("tenant", tenant)
			.query(Row.class)
			.list();
	}

	private static int mostAtOnce(List<Row> rows) {
		List<Edge> edges = new ArrayList<>();
		rows.forEach((row) -> {
			edges.add(new Edge(row.startedAt(), 1));
			edges.add(new Edge(row.finishedAt(), -1));
		});
		// at equal times the end first: rows that only touch did not run at once
		edges.sort(Comparator.comparing(Edge::at).thenComparingInt(Edge::change));
		int running = 0;
		int most = 0;
		for (Edge edge : edges) {
			running += edge.change();
			most = Math.max(most, running);
		}
		return most;
	}

	record Edge(Instant at, int change) {
	}

	record Row(Instant startedAt, Instant finishedAt) {
	}

}
