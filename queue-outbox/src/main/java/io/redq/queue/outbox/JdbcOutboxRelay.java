package io.redq.queue.outbox;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.RedisJobDispatcher;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * Moves the committed rows of the outbox table to Redis and deletes them, a batch of rows
 * per pass in one database transaction of its own: the rows are locked with
 * {@code FOR UPDATE SKIP LOCKED}, so that relays of several instances each take other
 * rows, each row is sent in one script call under the row's nonce, and the rows are
 * deleted before the transaction commits.
 *
 * <p>
 * A relay that dies after sending and before its transaction commits leaves the rows in
 * the table, unlocked as soon as the database sees the transaction end; the next pass of
 * any relay sends them again under the same nonces, and Redis, which remembers each nonce
 * for the {@linkplain #setResendWindow re-send window}, changes nothing: no job is lost
 * and none runs twice. A row sent again after the window finds its jobs kept by their ids
 * while they are pending or running; only a job that already completed would run again.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JdbcOutboxRelay implements SmartLifecycle {

	/** The default re-send window: one hour. */
	public static final Duration DEFAULT_RESEND_WINDOW = Duration.ofHours(1);

	private static final Log logger = LogFactory.getLog(JdbcOutboxRelay.class);

	private final JdbcJobOutbox outbox;

	private final EnqueueOperations enqueueOperations;

	private final JdbcTemplate jdbcTemplate;

	private final TransactionTemplate transactionTemplate;

	private final Semaphore wakeUp = new Semaphore(0);

	private int batchSize = 10;

	private Duration pollInterval = Duration.ofSeconds(1);

	private Duration resendWindow = DEFAULT_RESEND_WINDOW;

	private @Nullable String selectSql;

	private volatile @Nullable Thread thread;

	/**
	 * Create an instance.
	 * @param outbox the outbox whose table is relayed
	 * @param enqueueOperations the queues to send the jobs to, usually
	 * {@code RedisJobQueueOperations#getEnqueueOperations()}
	 * @param dataSource the database of the outbox table
	 */
	public JdbcOutboxRelay(JdbcJobOutbox outbox, EnqueueOperations enqueueOperations, DataSource dataSource) {
		this.outbox = outbox;
		this.enqueueOperations = enqueueOperations;
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.transactionTemplate = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.transactionTemplate.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
	}

	/**
	 * Set how many rows one pass takes; each row holds up to 1,000 jobs of one queue.
	 * <p>
	 * Default 10.
	 * @param batchSize the rows per pass
	 */
	public void setBatchSize(int batchSize) {
		Assert.isTrue(batchSize > 0, "batchSize must be positive");
		this.batchSize = batchSize;
	}

	/**
	 * Set how long the relay waits between passes that found the table empty; a commit on
	 * this instance wakes it at once.
	 * <p>
	 * Default 1 second.
	 * @param pollInterval the interval
	 */
	public void setPollInterval(Duration pollInterval) {
		Assert.isTrue(pollInterval.toMillis() > 0, "pollInterval must be at least 1 ms");
		this.pollInterval = pollInterval;
	}

	/**
	 * Set how long Redis remembers each row sent, so that the row sent again by a relay
	 * after one died before deleting it changes nothing. Redis holds about 134 bytes per
	 * row for that time.
	 * <p>
	 * Default {@link #DEFAULT_RESEND_WINDOW}.
	 * @param resendWindow the window, longer than the Redis command timeout
	 */
	public void setResendWindow(Duration resendWindow) {
		Assert.isTrue(resendWindow.compareTo(RedisJobDispatcher.DEFAULT_RESEND_WINDOW) >= 0,
				() -> "resendWindow must be at least " + RedisJobDispatcher.DEFAULT_RESEND_WINDOW + "; got "
						+ resendWindow);
		this.resendWindow = resendWindow;
	}

	/**
	 * Make the relay pass at once instead of at its next poll, e.g. after a commit that
	 * wrote jobs.
	 */
	public void wakeUp() {
		this.wakeUp.release();
	}

	/**
	 * Relay one batch of rows: lock them, send each under its nonce, delete them, commit.
	 * @return the rows relayed
	 */
	public int relay() {
		String select = selectSql();
		Integer relayed = this.transactionTemplate.execute((status) -> {
			List<Row> rows = this.jdbcTemplate.query(select,
					(rs, rowNum) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)),
					this.batchSize);
			for (Row row : rows) {
				this.enqueueOperations.enqueueOnce(row.queue(), row.nonce(), this.outbox.commands(row.jobs()),
						this.resendWindow);
			}
			this.jdbcTemplate.batchUpdate("DELETE FROM " + JdbcJobOutbox.TABLE + " WHERE id = ?",
					rows.stream().map((row) -> new Object[] { row.id() }).toList());
			return rows.size();
		});
		return (relayed != null) ? relayed : 0;
	}

	private String selectSql() {
		String sql = this.selectSql;
		if (sql == null) {
			sql = "SELECT id, nonce, queue, jobs FROM " + JdbcJobOutbox.TABLE + " ORDER BY id "
					+ limitAndLock(databaseName());
			this.selectSql = sql;
		}
		return sql;
	}

	private String databaseName() {
		try {
			return JdbcUtils.extractDatabaseMetaData(this.jdbcTemplate.getDataSource(),
					DatabaseMetaData::getDatabaseProductName);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read which database holds the outbox table", ex);
		}
	}

	/**
	 * The clause that takes the first rows that no other relay holds.
	 */
	static String limitAndLock(String databaseName) {
		String name = databaseName.toLowerCase(Locale.ROOT);
		if (name.contains("oracle") || name.contains("sql server")) {
			return "FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
		}
		// PostgreSQL, MySQL 8, MariaDB 10.6 and H2 2.x
		return "LIMIT ? FOR UPDATE SKIP LOCKED";
	}

	@Override
	public void start() {
		Thread relay = new Thread(this::run, "redq-outbox-relay");
		relay.setDaemon(true);
		this.thread = relay;
		relay.start();
	}

	/**
	 * Stop after the current pass, waiting for it at most 10 seconds; the relay is not
	 * interrupted, so that its database and Redis connections are left in order.
	 */
	@Override
	public void stop() {
		Thread relay = this.thread;
		this.thread = null;
		if (relay != null) {
			this.wakeUp.release();
			try {
				relay.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.thread != null;
	}

	private void run() {
		while (this.thread == Thread.currentThread()) {
			boolean idle;
			try {
				idle = relay() < this.batchSize;
			}
			catch (RuntimeException ex) {
				logger.warn("Outbox relay pass failed; its rows stay in " + JdbcJobOutbox.TABLE
						+ " and a later pass sends them", ex);
				idle = true;
			}
			if (idle) {
				try {
					this.wakeUp.tryAcquire(this.pollInterval.toMillis(), TimeUnit.MILLISECONDS);
					this.wakeUp.drainPermits();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private record Row(long id, String nonce, String queue, String jobs) {

	}

}
