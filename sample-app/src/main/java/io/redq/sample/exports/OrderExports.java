package io.redq.sample.exports;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDeadException;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobResultUnavailableException;
import io.redq.queue.core.JobStatus;
import io.redq.queue.listener.JobContext;
import io.redq.queue.redis.JobResults;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.util.Assert;

/**
 * Exports of a customer's orders to {@code order_export_line}, one line per order, and
 * what their callers see of them. Simulated: an email that starts with {@code flaky}
 * fails its first attempt halfway, and the next attempt goes on after the last order
 * exported.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class OrderExports {

	/** The export's job. */
	public static final String EXPORT_ORDERS = "export-orders";

	/** The exports' queue. */
	public static final String QUEUE = "exports";

	/**
	 * The longest a request may wait for an export's result: it holds a request thread.
	 */
	static final Duration MAX_WAIT = Duration.ofSeconds(30);

	/**
	 * How long exporting one order takes, simulated: long enough to watch the progress.
	 */
	static final Duration ORDER_TIME = Duration.ofMillis(50);

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	private final JobQueueOperations operations;

	private final JobResults results;

	public OrderExports(JdbcClient jdbc, JobDispatcher dispatcher, JobQueueOperations operations, JobResults results) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
		this.operations = operations;
		this.results = results;
	}

	/**
	 * Start an export of a customer's orders.
	 * @param email the customer's email
	 * @return the export's job id
	 */
	public String start(String email) {
		Assert.hasText(email, "email is required");
		return this.dispatcher.dispatch(EXPORT_ORDERS, email).id();
	}

	/**
	 * Export a customer's orders in the order of their ids: a step per order, which
	 * writes its line, reports the progress and returns the order's id as the cursor,
	 * kept in Redis, that the next attempt (or the next worker after a deploy) starts
	 * after.
	 * @param email the customer's email
	 * @param context the running job
	 * @return what the export wrote, the job's result
	 * @throws Exception when a step fails: the job is retried after
	 * {@code sample.exports.retry-delay}, from its cursor
	 */
	@QueuedJob(name = EXPORT_ORDERS, queue = QUEUE, maxAttempts = 3,
			backoff = @Backoff(delay = "${sample.exports.retry-delay:2s}"))
	public OrderExport exportOrders(String email, JobContext context) throws Exception {
		context.iterate(Long.class, 0L, (after) -> {
			Long next = this.jdbc
				.sql("SELECT id FROM customer_order WHERE email = :email AND id > :after ORDER BY id LIMIT 1")
				.param("email", email)
				.param("after", after)
				.query(Long.class)
				.optional()
				.orElse(null);
			if (next == null) {
				return null;
			}
			// counted at each step: the customer may place orders while the export runs
			long[] counts = this.jdbc.sql("""
					SELECT COUNT(CASE WHEN id < :id THEN 1 END) AS done, COUNT(*) AS orders
					FROM customer_order WHERE email = :email""")
				.param("email", email)
				.param("id", next)
				.query((row, number) -> new long[] { row.getLong("done"), row.getLong("orders") })
				.single();
			long done = counts[0];
			long count = counts[1];
			if (email.startsWith("flaky") && context.getAttempt() == 1 && done >= count / 2) {
				throw new IOException(
						"The export store went away after " + done + " of " + count + " orders (simulated)");
			}
			Thread.sleep(ORDER_TIME.toMillis());
			// keyed by the job and the order: a step that runs again writes the same line
			this.jdbc.sql("""
					MERGE INTO order_export_line (job_id, order_id, attempt, line) KEY (job_id, order_id)
					SELECT :job, id, :attempt, CONCAT(id, ',', product_id, ',', quantity, ',', total, ',', status)
					FROM customer_order WHERE id = :id""")
				.param("job", context.getId())
				.param("attempt", context.getAttempt())
				.param("id", next)
				.update();
			context.reportProgress((done + 1.0) / count, "exported order " + next);
			return next;
		});
		return this.jdbc.sql("""
				SELECT COUNT(*) AS orders, COALESCE(SUM(o.total), 0) AS total
				FROM order_export_line l JOIN customer_order o ON o.id = l.order_id WHERE l.job_id = :job""")
			.param("job", context.getId())
			.query((row, number) -> new OrderExport(email, row.getLong("orders"), row.getBigDecimal("total")))
			.single();
	}

	/**
	 * Return where an export stands, after waiting for its result if asked to.
	 * @param id the export's job id
	 * @param wait how long to wait for its result, from {@code 0s} (answer at once) to
	 * {@link #MAX_WAIT}
	 * @return the export: with its result once it completed, its error once it died, else
	 * its progress
	 * @throws NoSuchElementException when Redis holds no such export (never dispatched,
	 * or completed longer ago than its result is kept)
	 * @throws IllegalArgumentException when the wait is negative or too long
	 * @throws InterruptedException when the request's thread is interrupted while it
	 * waits
	 */
	public ExportView find(String id, Duration wait) throws InterruptedException {
		Assert.isTrue(!wait.isNegative() && wait.compareTo(MAX_WAIT) <= 0,
				() -> "wait must be between 0s and " + MAX_WAIT.toSeconds() + "s, but was " + wait.toMillis() + "ms");
		JobStatus status = this.operations.status(QUEUE, id);
		boolean ended = status.state() == JobStatus.State.COMPLETED || status.state() == JobStatus.State.DEAD;
		if (ended || !wait.isZero()) {
			// an ended job's result or error is there at once
			Duration timeout = wait.isZero() ? Duration.ofSeconds(1) : wait;
			try {
				OrderExport result = this.results.await(QUEUE, id, OrderExport.class, timeout).get();
				return new ExportView(id, JobStatus.State.COMPLETED, 1.0, null, result, null);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof JobDeadException dead) {
					return new ExportView(id, JobStatus.State.DEAD, null, null, null, dead.getError());
				}
				if (ex.getCause() instanceof JobResultUnavailableException unavailable) {
					throw new NoSuchElementException("No export " + id + ": " + unavailable.getMessage());
				}
				if (!(ex.getCause() instanceof TimeoutException)) {
					throw new IllegalStateException("Reading the result of export " + id + " failed", ex.getCause());
				}
			}
			status = this.operations.status(QUEUE, id);
		}
		if (status.state() == JobStatus.State.NONE) {
			throw new NoSuchElementException("No export " + id);
		}
		JobProgress progress = this.operations.progress(QUEUE, id);
		return new ExportView(id, status.state(), (progress != null) ? progress.fraction() : null,
				(progress != null) ? progress.message() : null, null, null);
	}

	/**
	 * Return the lines an export wrote.
	 * @param id the export's job id
	 * @return its lines, in the order of their orders
	 */
	public List<Line> lines(String id) {
		return this.jdbc
			.sql("SELECT order_id, attempt, line FROM order_export_line WHERE job_id = :job ORDER BY order_id")
			.param("job", id)
			.query(Line.class)
			.list();
	}

	/**
	 * A line of an export.
	 *
	 * @param orderId the order it is of
	 * @param attempt the attempt of the export that wrote it
	 * @param line the order as comma-separated values
	 */
	public record Line(long orderId, int attempt, String line) {
	}

}
