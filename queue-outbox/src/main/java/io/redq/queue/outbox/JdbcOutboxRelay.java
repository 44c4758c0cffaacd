package io.redq.queue.outbox;

import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ResendProtection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.util.Assert;

/**
 * Applies the committed rows of the outbox table to Redis, row by row in the order of
 * their ids within each queue, and deletes each row once applied. Each step of a row (a
 * batch of jobs, a cancel, a reschedule) is one script call under a nonce of the row, so
 * that a row applied again changes nothing within the {@linkplain #setResendWindow
 * re-send window}.
 *
 * <p>
 * A pass first claims up to a batch of rows in a short transaction that holds the lock
 * row of {@code redq_outbox_lock}: the rows in id order whose queue has no earlier row
 * claimed or waiting for a retry. It marks them claimed for a minute and records when
 * each was first sent. Relays of several instances thus work on different queues, and the
 * rows of one queue are applied in order. Each row is then applied and deleted on its
 * own: a row that fails is retried with a backoff (1 second, doubling, at most a minute)
 * while the later rows of its queue wait and the other queues go on.
 *
 * <p>
 * A row is moved aside, to {@value JdbcJobOutbox#PARKED_TABLE} with its reason, when it
 * cannot be read (e.g. written by a newer version of Redq), when it failed
 * {@linkplain #setMaxAttempts max attempts} times, or when it was first sent longer ago
 * than the re-send window less two minutes: Redis may then have applied it and forgotten
 * its nonce, and applying it again could apply it twice (a {@code REPLACE} job or a timer
 * moved back, a cancel repeated). The later rows of its queue then go on.
 *
 * <p>
 * A relay that dies after applying a row and before deleting it leaves the row claimed
 * for at most a minute; the next pass of any relay applies it again under the same
 * nonces, and Redis, which remembers each nonce for the re-send window, changes nothing:
 * no job is lost and none runs twice.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JdbcOutboxRelay implements SmartLifecycle {

	/** The default re-send window: one hour. */
	public static final Duration DEFAULT_RESEND_WINDOW = Duration.ofHours(1);

	/** The default number of attempts before a row is moved aside. */
	public static final int DEFAULT_MAX_ATTEMPTS = 30;

	/** How long a pass holds the rows it claimed. */
	static final Duration CLAIM = Duration.ofMinutes(1);

	private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

	private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

	/**
	 * How long before the end of the re-send window a row is last sent again: longer than
	 * a send may take (the Redis command timeout, by default a minute).
	 */
	private static final Duration RESEND_MARGIN = RedisJobDispatcher.DEFAULT_RESEND_WINDOW;

	private static final Log logger = LogFactory.getLog(JdbcOutboxRelay.class);

	private static final String SELECT = "SELECT id, queue, nonce, steps, attempts, sent_at FROM " + JdbcJobOutbox.TABLE
			+ " o WHERE next_attempt_at <= ? AND NOT EXISTS (SELECT 1 FROM " + JdbcJobOutbox.TABLE
			+ " e WHERE e.queue = o.queue AND e.id < o.id AND e.next_attempt_at > ?) ORDER BY id LIMIT ?";

	private final JdbcJobOutbox outbox;

	private final EnqueueOperations enqueueOperations;

	private final BatchOperations batchOperations;

	private final ChainOperations chainOperations;

	private final QueueStore store;

	private final JdbcTemplate jdbcTemplate;

	private final Semaphore wakeUp = new Semaphore(0);

	private int batchSize = 10;

	private Duration pollInterval = Duration.ofSeconds(1);

	private Duration resendWindow = DEFAULT_RESEND_WINDOW;

	private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

	private volatile @Nullable Thread thread;

	/**
	 * Create an instance.
	 * @param outbox the outbox whose table is relayed
	 * @param operations the queues to apply the rows to
	 */
	public JdbcOutboxRelay(JdbcJobOutbox outbox, RedisJobQueueOperations operations) {
		this.outbox = outbox;
		this.enqueueOperations = operations.getEnqueueOperations();
		this.batchOperations = operations.getBatchOperations();
		this.chainOperations = operations.getChainOperations();
		this.store = operations.getStore();
		this.jdbcTemplate = new JdbcTemplate(outbox.getDataSource());
	}

	/**
	 * Set how many rows one pass takes; each row holds up to 1,000 jobs and timer calls
	 * of one queue.
	 * <p>
	 * Default 10.
	 * @param batchSize the rows per pass
	 */
	public void setBatchSize(int batchSize) {
		Assert.isTrue(batchSize > 0, "batchSize must be positive");
		this.batchSize = batchSize;
	}

	/**
	 * Set how long the relay waits between passes that found fewer rows than a batch; a
	 * commit on this instance wakes it at once.
	 * <p>
	 * Default 1 second.
	 * @param pollInterval the interval
	 */
	public void setPollInterval(Duration pollInterval) {
		Assert.isTrue(pollInterval.toMillis() > 0, "pollInterval must be at least 1 ms");
		this.pollInterval = pollInterval;
	}

	/**
	 * Set how long Redis remembers each step applied, so that a row applied again by a
	 * relay after one died before deleting it changes nothing. Redis holds about 134
	 * bytes per step for that time. A row that keeps failing is retried for this window
	 * less two minutes, then moved aside.
	 * <p>
	 * Default {@link #DEFAULT_RESEND_WINDOW}.
	 * @param resendWindow the window, at least two minutes
	 */
	public void setResendWindow(Duration resendWindow) {
		Assert.isTrue(resendWindow.compareTo(RESEND_MARGIN) >= 0,
				() -> "resendWindow must be at least " + RESEND_MARGIN + "; got " + resendWindow);
		this.resendWindow = resendWindow;
	}

	/**
	 * Set how many times a row is tried before it is moved aside.
	 * <p>
	 * Default {@value #DEFAULT_MAX_ATTEMPTS}.
	 * @param maxAttempts the attempts, at least 1
	 */
	public void setMaxAttempts(int maxAttempts) {
		Assert.isTrue(maxAttempts > 0, "maxAttempts must be positive");
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Make the relay pass at once instead of at its next poll, e.g. after a commit that
	 * wrote rows.
	 */
	public void wakeUp() {
		this.wakeUp.release();
	}

	/**
	 * Relay one batch of rows: claim them, then apply and delete each, in order per
	 * queue.
	 * @return the rows claimed
	 */
	public int relay() {
		long now = System.currentTimeMillis();
		List<Row> rows = claim(now);
		Set<String> waiting = new HashSet<>();
		for (Row row : rows) {
			if (waiting.contains(row.queue())) {
				// an earlier row of its queue failed in this pass: this one waits for it
				release(row);
			}
			else if (!apply(row, now)) {
				waiting.add(row.queue());
			}
		}
		return rows.size();
	}

	private List<Row> claim(long now) {
		List<Row> rows = this.outbox.newTransaction().execute((status) -> {
			if (this.jdbcTemplate
				.queryForList("SELECT name FROM redq_outbox_lock WHERE name = 'relay' FOR UPDATE", String.class)
				.isEmpty()) {
				throw new IllegalStateException("The outbox's lock row is missing from redq_outbox_lock: create the "
						+ "outbox tables with the script that queue-outbox ships (redq.outbox.jdbc.initialize-schema)");
			}
			List<Row> claimed = this.jdbcTemplate.query(SELECT, (rs, rowNum) -> new Row(rs.getLong(1), rs.getString(2),
					rs.getString(3), rs.getString(4), rs.getInt(5), rs.getObject(6, Long.class)), now, now,
					this.batchSize);
			this.jdbcTemplate.batchUpdate(
					"UPDATE " + JdbcJobOutbox.TABLE + " SET next_attempt_at = ?, sent_at = COALESCE(sent_at, ?) "
							+ "WHERE id = ?",
					claimed.stream().map((row) -> new Object[] { now + CLAIM.toMillis(), now, row.id() }).toList());
			return claimed;
		});
		return (rows != null) ? rows : List.of();
	}

	/**
	 * Apply a row and delete it, or record its failure.
	 * @return whether the later rows of its queue may go on
	 */
	private boolean apply(Row row, long now) {
		List<OutboxStep> steps;
		try {
			steps = OutboxFormat.read(row.steps());
		}
		catch (IllegalArgumentException ex) {
			park(row, row.attempts(), "Unreadable: " + ex.getMessage());
			return true;
		}
		long lastResend = (row.sentAt() != null)
				? row.sentAt() + this.resendWindow.toMillis() - RESEND_MARGIN.toMillis() : Long.MAX_VALUE;
		if (now > lastResend) {
			park(row, row.attempts(), "First sent at " + Instant.ofEpochMilli(row.sentAt())
					+ ", longer ago than the re-send window (" + this.resendWindow + ") less " + RESEND_MARGIN
					+ ": Redis may have applied it and forgotten its "
					+ "nonce, so applying it again could apply it twice (a REPLACE job or a timer moved back, a "
					+ "cancel repeated). Check its jobs and timers, then retry or delete it");
			return true;
		}
		try {
			for (int i = 0; i < steps.size(); i++) {
				apply(row.queue(), row.nonce() + "." + i, steps.get(i));
			}
		}
		catch (RuntimeException ex) {
			return failed(row, ex, Math.min(lastResend, now + this.resendWindow.toMillis()));
		}
		this.jdbcTemplate.update("DELETE FROM " + JdbcJobOutbox.TABLE + " WHERE id = ?", row.id());
		return true;
	}

	private void apply(String queue, String callId, OutboxStep step) {
		if (step instanceof OutboxStep.Enqueue enqueue) {
			this.enqueueOperations.enqueueOnce(queue, callId, enqueue.commands(), this.resendWindow);
		}
		else if (step instanceof OutboxStep.Batch batch) {
			this.batchOperations.getCreationOperations().createOnce(batch.batch(), callId, this.resendWindow);
		}
		else if (step instanceof OutboxStep.Chain chain) {
			this.chainOperations.createOnce(chain.chain(), callId, this.resendWindow);
		}
		else if (step instanceof OutboxStep.Cancel cancel) {
			this.store.runOnce(this.store.getScripts().cancel(), queue, call(queue, callId),
					List.of(this.store.keys(queue).progress(cancel.id())), List.of(cancel.id()));
		}
		else {
			OutboxStep.Reschedule reschedule = (OutboxStep.Reschedule) step;
			this.store.runOnce(this.store.getScripts().reschedule(), queue, call(queue, callId),
					List.of(reschedule.id(), "a", Long.toString(reschedule.at())));
		}
	}

	private ResendProtection.Call call(String queue, String callId) {
		return ResendProtection.once(this.store.keys(queue), callId, this.resendWindow);
	}

	/**
	 * Record a failed attempt: retry the row after a backoff, or move it aside.
	 * @return whether the later rows of its queue may go on
	 */
	private boolean failed(Row row, RuntimeException ex, long lastResend) {
		long now = System.currentTimeMillis();
		int attempts = row.attempts() + 1;
		Duration backoff = backoff(attempts);
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
		String error = (cause != ex) ? ex + "; caused by " + cause : ex.toString();
		if (attempts >= this.maxAttempts || now + backoff.toMillis() > lastResend) {
			park(row, attempts,
					"Failed " + attempts + " time(s), " + ((attempts >= this.maxAttempts)
							? "the most allowed (redq.outbox.relay.max-attempts)" : "until the re-send window ran out")
							+ "; last: " + error);
			return true;
		}
		logger.warn("Outbox row " + row.id() + " of queue '" + row.queue() + "' failed (attempt " + attempts + " of "
				+ this.maxAttempts + "); it and the later rows of its queue are tried again in " + backoff
				+ ", the other queues go on", ex);
		this.jdbcTemplate.update(
				"UPDATE " + JdbcJobOutbox.TABLE + " SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
				attempts, now + backoff.toMillis(), shorten(error), row.id());
		return false;
	}

	/** Give a claimed row back unsent: it waits for an earlier row of its queue. */
	private void release(Row row) {
		this.jdbcTemplate.update("UPDATE " + JdbcJobOutbox.TABLE + " SET next_attempt_at = 0, sent_at = ? WHERE id = ?",
				new SqlParameterValue(Types.BIGINT, row.sentAt()), row.id());
	}

	private void park(Row row, int attempts, String reason) {
		logger.error("Outbox row " + row.id() + " of queue '" + row.queue() + "' moved aside to "
				+ JdbcJobOutbox.PARKED_TABLE + "; the later rows of its queue go on. " + reason);
		this.outbox.park(row.id(), attempts, reason);
	}

	static Duration backoff(int attempts) {
		Duration backoff = FIRST_BACKOFF.multipliedBy(1L << Math.min(attempts - 1, 16));
		return (backoff.compareTo(MAX_BACKOFF) < 0) ? backoff : MAX_BACKOFF;
	}

	private static String shorten(String text) {
		return (text.length() > 1000) ? text.substring(0, 997) + "..." : text;
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
		int failedPasses = 0;
		while (this.thread == Thread.currentThread()) {
			Duration wait;
			try {
				wait = (relay() < this.batchSize) ? this.pollInterval : Duration.ZERO;
				failedPasses = 0;
			}
			catch (Throwable ex) {
				// an Error too: the relay must not end, silently or not, while its
				// application runs
				failedPasses++;
				Duration backoff = backoff(failedPasses);
				wait = (backoff.compareTo(this.pollInterval) > 0) ? backoff : this.pollInterval;
				logger.error("Outbox relay pass failed; its rows stay in " + JdbcJobOutbox.TABLE
						+ " and the next pass, in " + wait + ", takes them", ex);
			}
			if (!wait.isZero()) {
				try {
					this.wakeUp.tryAcquire(wait.toMillis(), TimeUnit.MILLISECONDS);
					this.wakeUp.drainPermits();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private record Row(long id, String queue, String nonce, String steps, int attempts, @Nullable Long sentAt) {

	}

}
