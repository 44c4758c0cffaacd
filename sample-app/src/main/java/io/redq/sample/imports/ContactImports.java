package io.redq.sample.imports;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.util.Assert;

/**
 * Imports of tenants' contacts: a job per row, in the tenant's group.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class ContactImports {

	/** The most rows one import may have. */
	public static final int MAX_ROWS = 10_000;

	/**
	 * How long storing a row takes, simulated: long enough that the dashboard shows
	 * running jobs and a busy tenant's backlog.
	 */
	static final Duration ROW_TIME = Duration.ofMillis(20);

	private final JobDispatcher dispatcher;

	private final JdbcClient jdbc;

	public ContactImports(JobDispatcher dispatcher, JdbcClient jdbc) {
		this.dispatcher = dispatcher;
		this.jdbc = jdbc;
	}

	/**
	 * Start a tenant's import: its rows are dispatched in one call, in the tenant's
	 * group.
	 * @param tenant whose import it is: 1 to 128 letters, digits and {@code . _ : @ -}
	 * @param rows how many rows it has
	 */
	public void start(String tenant, int rows) {
		Assert.hasText(tenant, "tenant is required");
		Assert.isTrue(rows >= 1 && rows <= MAX_ROWS,
				() -> "rows must be between 1 and " + MAX_ROWS + ", but was " + rows);
		List<JobRequest> jobs = IntStream.rangeClosed(1, rows)
			.mapToObj((line) -> JobRequest.of("import-contact", new ContactRow(tenant, line)).group(tenant).build())
			.toList();
		this.dispatcher.dispatchAll(jobs);
	}

	/**
	 * Store one row.
	 * @param row the row
	 * @throws InterruptedException when the shutdown interrupts the row
	 */
	@QueuedJob(name = "import-contact", queue = "imports")
	public void importContact(ContactRow row) throws InterruptedException {
		Instant started = Instant.now();
		Thread.sleep(ROW_TIME.toMillis());
		this.jdbc.sql("""
				MERGE INTO contact (tenant, line, started_at, finished_at) KEY (tenant, line)
				VALUES (:tenant, :line, :started, :finished)""")
			.param("tenant", row.tenant())
			.param("line", row.line())
			.param("started", started)
			.param("finished", Instant.now())
			.update();
	}

}
