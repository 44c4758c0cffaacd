package io.redq.queue.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.ResendProtection;
import io.redq.queue.transaction.JobOutbox;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link JobOutbox} on a table of the application's JDBC database, {@value #TABLE}: the
 * jobs a transaction dispatches are written there in that transaction (through the
 * connection Spring binds to it, see
 * {@link org.springframework.jdbc.datasource.DataSourceUtils}), one row per queue of up
 * to 1,000 jobs, each row with a nonce of its own under which {@link JdbcOutboxRelay}
 * sends it, so that a row sent twice changes nothing the second time.
 *
 * <p>
 * A job is checked and written as JSON at the dispatch, so that bad input fails the
 * caller inside its transaction. A job without a caller id is stored with a generated one
 * and {@link DuplicatePolicy#KEEP}: a row sent again after Redis forgot its nonce finds
 * the job still pending and keeps it.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JdbcJobOutbox implements JobOutbox {

	/** The outbox table. */
	public static final String TABLE = "redq_outbox";

	private static final TypeReference<List<StoredJob>> STORED_JOBS = new TypeReference<>() {
	};

	private final RedisJobDispatcher dispatcher;

	private final JdbcTemplate jdbcTemplate;

	private final JsonMapper jsonMapper;

	private @Nullable Runnable commitListener;

	/**
	 * Create an instance.
	 * @param dispatcher the dispatcher that checks jobs and writes them as JSON
	 * @param dataSource the database of the outbox table, the one the application's
	 * transactions use
	 * @param jsonMapper the mapper that writes the stored jobs
	 */
	public JdbcJobOutbox(RedisJobDispatcher dispatcher, DataSource dataSource, JsonMapper jsonMapper) {
		this.dispatcher = dispatcher;
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.jsonMapper = jsonMapper;
	}

	/**
	 * Set what runs after a transaction that wrote jobs commits, e.g. waking a relay.
	 * @param commitListener the listener, or {@code null}
	 */
	public void setCommitListener(@Nullable Runnable commitListener) {
		this.commitListener = commitListener;
	}

	@Override
	public Entry prepare(JobRequest request) {
		PreparedCommand prepared = this.dispatcher.prepareCommand(request);
		EnqueueCommand command = prepared.command();
		return new OutboxEntry(prepared.queue(),
				new StoredJob(command.id(), command.due().absolute(), command.due().millis(),
						command.generatedId() ? DuplicatePolicy.KEEP : command.policy(), command.uniqueness(),
						command.body()));
	}

	@Override
	public void write(List<Entry> entries) {
		Map<String, List<StoredJob>> byQueue = new LinkedHashMap<>();
		for (Entry entry : entries) {
			OutboxEntry job = (OutboxEntry) entry;
			byQueue.computeIfAbsent(job.queue(), (queue) -> new ArrayList<>()).add(job.job());
		}
		long now = System.currentTimeMillis();
		List<Object[]> rows = new ArrayList<>();
		byQueue.forEach((queue, jobs) -> {
			for (int from = 0; from < jobs.size(); from += QueueStore.MAX_BATCH_SIZE) {
				List<StoredJob> batch = jobs.subList(from, Math.min(jobs.size(), from + QueueStore.MAX_BATCH_SIZE));
				rows.add(new Object[] { ResendProtection.newId(), queue, batch.size(),
						this.jsonMapper.writeValueAsString(batch), now });
			}
		});
		this.jdbcTemplate.batchUpdate(
				"INSERT INTO " + TABLE + " (nonce, queue, job_count, jobs, created_at) VALUES (?, ?, ?, ?, ?)", rows);
	}

	@Override
	public void committed() {
		if (this.commitListener != null) {
			this.commitListener.run();
		}
	}

	/**
	 * Return what waits in the outbox table.
	 * @return the rows, jobs and the time of the oldest row
	 */
	public OutboxStatus status() {
		return this.jdbcTemplate.queryForObject(
				"SELECT COUNT(*), COALESCE(SUM(job_count), 0), MIN(created_at) FROM " + TABLE,
				(rs, rowNum) -> new OutboxStatus(rs.getLong(1), rs.getLong(2),
						(rs.getObject(3) != null) ? Instant.ofEpochMilli(rs.getLong(3)) : null));
	}

	/**
	 * Read the jobs of a row.
	 * @param jobs the row's {@code jobs} column
	 * @return the enqueue commands
	 */
	List<EnqueueCommand> commands(String jobs) {
		return this.jsonMapper.readValue(jobs, STORED_JOBS)
			.stream()
			.map((job) -> new EnqueueCommand(job.id(), new Due(job.absolute(), job.due()), job.policy(),
					job.uniqueness(), job.body()))
			.toList();
	}

	/**
	 * A job as a row stores it: the enqueue script's arguments.
	 */
	record StoredJob(String id, boolean absolute, long due, DuplicatePolicy policy, Uniqueness uniqueness,
			String body) {

	}

	private record OutboxEntry(String queue, StoredJob job) implements Entry {

	}

}
