package io.redq.queue.outbox;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.PreparedBatch;
import io.redq.queue.redis.PreparedChain;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.PreparedJob;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.ResendProtection;
import io.redq.queue.transaction.JobOutbox;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * {@link JobOutbox} on a table of the application's JDBC database, {@value #TABLE}: the
 * jobs a transaction dispatches and the timer calls it makes are written there in that
 * transaction (through the connection Spring binds to it, see
 * {@link org.springframework.jdbc.datasource.DataSourceUtils}), one row per queue of up
 * to 1,000 jobs and calls in call order, each row with a nonce of its own under which
 * {@link JdbcOutboxRelay} applies it, so that a row applied twice changes nothing the
 * second time. Rows are written in {@link OutboxFormat Redq's own format}, whatever the
 * application's JSON settings.
 *
 * <p>
 * A job is checked and written as JSON at the dispatch, so that bad input fails the
 * caller inside its transaction. A job without a caller id is stored with a generated one
 * and {@link io.redq.queue.core.DuplicatePolicy#KEEP}: a row sent again after Redis
 * forgot its nonce finds the job still pending and keeps it. A row that the relay could
 * not apply is moved to {@value #PARKED_TABLE} with its reason, where
 * {@link #parkedRows(long, int)} lists it for an operator.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JdbcJobOutbox implements JobOutbox {

	/** The outbox table. */
	public static final String TABLE = "redq_outbox";

	/** The table of the rows that the relay moved aside. */
	public static final String PARKED_TABLE = "redq_outbox_parked";

	/** The most rows that {@link #status()} counts in each table. */
	public static final int COUNT_LIMIT = 10_000;

	/** The most rows that one call of {@link #parkedRows(long, int)} returns. */
	public static final int MAX_PARKED_PAGE = 100;

	/** What a timer call, which dispatches no job, tells when stored or discarded. */
	private static final Runnable NOTHING = () -> {
	};

	private static final Consumer<Exception> IGNORED = (reason) -> {
	};

	private final RedisJobDispatcher dispatcher;

	private final DataSource dataSource;

	private final JdbcTemplate jdbcTemplate;

	private final TransactionTemplate newTransaction;

	private @Nullable Runnable commitListener;

	/**
	 * Create an instance.
	 * @param dispatcher the dispatcher that checks jobs and writes them as JSON
	 * @param dataSource the database of the outbox table, the one the application's
	 * transactions use
	 * @throws IllegalStateException when the database is not one the outbox supports
	 */
	public JdbcJobOutbox(RedisJobDispatcher dispatcher, DataSource dataSource) {
		this.dispatcher = dispatcher;
		this.dataSource = dataSource;
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.newTransaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.newTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		// refused at startup rather than at the first relay pass
		OutboxDatabase.of(dataSource);
	}

	/**
	 * Set what runs after a transaction that wrote rows commits, e.g. waking a relay.
	 * @param commitListener the listener, or {@code null}
	 */
	public void setCommitListener(@Nullable Runnable commitListener) {
		this.commitListener = commitListener;
	}

	DataSource getDataSource() {
		return this.dataSource;
	}

	TransactionTemplate newTransaction() {
		return this.newTransaction;
	}

	@Override
	public Entry prepare(JobRequest request) {
		PreparedJob job = this.dispatcher.prepare(request);
		return new OutboxEntry(job.queue(), new OutboxStep.Enqueue(List.of(job.command())), job::dispatched,
				job::failed);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The batch is one row, of its first member's queue, however many members it has.
	 */
	@Override
	public Entry prepareBatch(PreparedBatch batch) {
		BatchCommand command = batch.command();
		return new OutboxEntry(command.members().get(0).queue(), new OutboxStep.Batch(command), batch::dispatched,
				batch::failed);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The chain is one row, of its first step's queue.
	 */
	@Override
	public Entry prepareChain(PreparedChain chain) {
		ChainCommand command = chain.command();
		return new OutboxEntry(command.steps().get(0).queue(), new OutboxStep.Chain(command), chain::dispatched,
				chain::failed);
	}

	@Override
	public Entry prepareCancel(String queue, String id) {
		return new OutboxEntry(QueueNames.validate(queue), new OutboxStep.Cancel(QueueNames.validateId(id)), NOTHING,
				IGNORED);
	}

	@Override
	public Entry prepareCancelTimer(String jobName, Object key) {
		PreparedCommand timer = timer(jobName, key, Instant.EPOCH);
		return new OutboxEntry(timer.queue(), new OutboxStep.Cancel(timer.command().id()), NOTHING, IGNORED);
	}

	@Override
	public Entry prepareReschedule(String jobName, Object key, Instant at) {
		PreparedCommand timer = timer(jobName, key, at);
		return new OutboxEntry(timer.queue(), new OutboxStep.Reschedule(timer.command().id(), at.toEpochMilli()),
				NOTHING, IGNORED);
	}

	/** The timer's queue and id, checked as a schedule of it would be. */
	private PreparedCommand timer(String jobName, Object key, Instant at) {
		return this.dispatcher.check(JobDispatcher.timerRequest(jobName, key, at));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Refuses to write on a connection that commits each statement by itself: the outbox
	 * table's {@link DataSource} is then not the one the transaction runs on (e.g. a
	 * {@code @Primary} pool while the transaction manager uses another), and the rows
	 * would be committed before, and whatever, the transaction's outcome.
	 */
	@Override
	public void write(List<Entry> entries) {
		Boolean autoCommit = this.jdbcTemplate.execute((ConnectionCallback<Boolean>) Connection::getAutoCommit);
		if (Boolean.TRUE.equals(autoCommit)) {
			throw new IllegalStateException("The outbox's DataSource is not in the transaction that dispatched the "
					+ "jobs: its connection commits each statement at once, so the rows would be written even if the "
					+ "transaction rolled back. Run the transaction on a transaction manager of the DataSource that "
					+ "holds the " + TABLE + " table, or set redq.outbox.enabled=false to send the jobs after the "
					+ "commit instead");
		}
		insert(entries);
	}

	@Override
	public void writeAfterCommit(List<Entry> entries) {
		this.newTransaction.executeWithoutResult((status) -> insert(entries));
	}

	private void insert(List<Entry> entries) {
		Map<String, List<OutboxStep>> byQueue = new LinkedHashMap<>();
		for (Entry entry : entries) {
			OutboxEntry step = (OutboxEntry) entry;
			byQueue.computeIfAbsent(step.queue(), (queue) -> new ArrayList<>()).add(step.step());
		}
		long now = System.currentTimeMillis();
		List<Object[]> rows = new ArrayList<>();
		byQueue.forEach((queue, steps) -> {
			for (List<OutboxStep> row : rows(steps)) {
				rows.add(new Object[] { queue, ResendProtection.newId(), OutboxFormat.write(row),
						row.stream().mapToInt(OutboxStep::jobs).sum(), now });
			}
		});
		this.jdbcTemplate.batchUpdate(
				"INSERT INTO " + TABLE + " (queue, nonce, steps, job_count, created_at) VALUES (?, ?, ?, ?, ?)", rows);
	}

	/**
	 * Split the steps of one queue into rows of at most
	 * {@value QueueStore#MAX_BATCH_SIZE} jobs and calls, consecutive dispatches in one
	 * step.
	 */
	private static List<List<OutboxStep>> rows(List<OutboxStep> steps) {
		List<List<OutboxStep>> rows = new ArrayList<>();
		List<OutboxStep> row = new ArrayList<>();
		int size = 0;
		for (OutboxStep step : steps) {
			if (size == QueueStore.MAX_BATCH_SIZE) {
				rows.add(row);
				row = new ArrayList<>();
				size = 0;
			}
			int last = row.size() - 1;
			if (step instanceof OutboxStep.Enqueue enqueue && last >= 0
					&& row.get(last) instanceof OutboxStep.Enqueue previous) {
				List<EnqueueCommand> merged = new ArrayList<>(previous.commands());
				merged.addAll(enqueue.commands());
				row.set(last, new OutboxStep.Enqueue(merged));
			}
			else {
				row.add(step);
			}
			size++;
		}
		if (!row.isEmpty()) {
			rows.add(row);
		}
		return rows;
	}

	@Override
	public void committed() {
		if (this.commitListener != null) {
			this.commitListener.run();
		}
	}

	/**
	 * Return what waits in the outbox table and what was moved aside, counting at most
	 * {@value #COUNT_LIMIT} rows of each, so that a reading costs the same however many
	 * rows wait.
	 * @return the rows, jobs, the time of the oldest row and the parked rows
	 */
	public OutboxStatus status() {
		List<Long> oldest = this.jdbcTemplate.queryForList("SELECT created_at FROM " + TABLE + " ORDER BY id LIMIT ?",
				Long.class, 1);
		long[] waiting = this.jdbcTemplate.queryForObject(
				"SELECT COUNT(*), COALESCE(SUM(job_count), 0) FROM (SELECT job_count FROM " + TABLE
						+ " ORDER BY id LIMIT ?) w",
				(rs, rowNum) -> new long[] { rs.getLong(1), rs.getLong(2) }, COUNT_LIMIT);
		Long parked = this.jdbcTemplate.queryForObject(
				"SELECT COUNT(*) FROM (SELECT id FROM " + PARKED_TABLE + " ORDER BY id LIMIT ?) p", Long.class,
				COUNT_LIMIT);
		return new OutboxStatus(waiting[0], waiting[1], oldest.isEmpty() ? null : Instant.ofEpochMilli(oldest.get(0)),
				(parked != null) ? parked : 0);
	}

	/**
	 * Return a page of the rows that the relay moved aside, oldest first: those after a
	 * row id, so that a page costs the same however many rows are parked.
	 * @param afterId the id of the last row of the page before, {@code 0} for the first
	 * page
	 * @param limit the most rows to return, at most {@value #MAX_PARKED_PAGE}
	 * @return the rows, with the reason of each
	 */
	public List<ParkedRow> parkedRows(long afterId, int limit) {
		Assert.isTrue(limit > 0 && limit <= MAX_PARKED_PAGE,
				() -> "limit must be between 1 and " + MAX_PARKED_PAGE + ", was " + limit);
		return this.jdbcTemplate.query(
				"SELECT id, queue, job_count, created_at, parked_at, attempts, reason, steps FROM " + PARKED_TABLE
						+ " WHERE id > ? ORDER BY id LIMIT ?",
				(rs, rowNum) -> new ParkedRow(rs.getLong(1), rs.getString(2), OutboxFormat.jobNames(rs.getString(8)),
						rs.getInt(3), Instant.ofEpochMilli(rs.getLong(4)), Instant.ofEpochMilli(rs.getLong(5)),
						rs.getInt(6), rs.getString(7)),
				afterId, limit);
	}

	/**
	 * Move a parked row back into the outbox, behind the rows of its queue that wait, for
	 * the relay to apply again under its nonce. A row parked because Redis may have
	 * applied it and forgotten its nonce is then applied again: retry it only when its
	 * jobs and timers show that it was not applied.
	 * @param id the parked row's id
	 * @return whether the row was parked
	 */
	public boolean retryParked(long id) {
		Boolean moved = this.newTransaction.execute((status) -> {
			int inserted = this.jdbcTemplate.update("INSERT INTO " + TABLE + " (queue, nonce, steps, job_count, "
					+ "created_at) SELECT queue, nonce, steps, job_count, created_at FROM " + PARKED_TABLE
					+ " WHERE id = ?", id);
			this.jdbcTemplate.update("DELETE FROM " + PARKED_TABLE + " WHERE id = ?", id);
			return inserted == 1;
		});
		committed();
		return Boolean.TRUE.equals(moved);
	}

	/**
	 * Delete a parked row: its jobs and timer calls are not applied.
	 * @param id the parked row's id
	 * @return whether the row was parked
	 */
	public boolean deleteParked(long id) {
		return this.jdbcTemplate.update("DELETE FROM " + PARKED_TABLE + " WHERE id = ?", id) == 1;
	}

	/**
	 * Move a row aside with its reason, in a transaction of its own.
	 * @param id the row's id
	 * @param attempts how often the relay tried it
	 * @param reason why the relay does not apply it
	 */
	void park(long id, int attempts, String reason) {
		String shortened = (reason.length() > 1000) ? reason.substring(0, 997) + "..." : reason;
		this.newTransaction.executeWithoutResult((status) -> {
			this.jdbcTemplate.update("INSERT INTO " + PARKED_TABLE
					+ " (id, queue, nonce, steps, job_count, created_at, "
					+ "attempts, sent_at, parked_at, reason) SELECT id, queue, nonce, steps, job_count, created_at, ?, "
					+ "sent_at, ?, ? FROM " + TABLE + " WHERE id = ?", attempts, System.currentTimeMillis(), shortened,
					id);
			this.jdbcTemplate.update("DELETE FROM " + TABLE + " WHERE id = ?", id);
		});
	}

	/**
	 * A row that the relay moved aside.
	 *
	 * @param id the row's id
	 * @param queue its queue
	 * @param jobNames the names of the jobs it dispatches, each once, in order; empty
	 * when it only calls timers or is of a format this version does not read
	 * @param jobCount the jobs it dispatches
	 * @param createdAt when it was written
	 * @param parkedAt when it was moved aside
	 * @param attempts how often the relay tried it
	 * @param reason why it was moved aside
	 */
	public record ParkedRow(long id, String queue, List<String> jobNames, int jobCount, Instant createdAt,
			Instant parkedAt, int attempts, String reason) {

	}

	/**
	 * A step of a transaction as the outbox stores it, and what tells the dispatch
	 * interceptors, which the jobs it dispatches met when they were prepared, whether it
	 * was stored.
	 */
	private record OutboxEntry(String queue, OutboxStep step, Runnable onStored,
			Consumer<Exception> onDiscarded) implements Entry {

		@Override
		public void stored() {
			this.onStored.run();
		}

		@Override
		public void discarded(Exception reason) {
			this.onDiscarded.accept(reason);
		}

	}

}
