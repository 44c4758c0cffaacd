package io.redq.queue.listener;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.ProgressFields;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a run keeps in Redis across its job's attempts: the progress its handler reports,
 * its cursor and its finished steps. Created by the first use, so that a job that uses
 * none of them costs nothing. The latest values are written at most once per interval, by
 * the handler's thread as it reports or by the container's renewals, and at once when
 * asked ({@link #flush}).
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobRunState {

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final ListenerOperations operations;

	private final String queue;

	private final Lease lease;

	private final long tag;

	private final long intervalNanos;

	private final Runnable leaseLost;

	/** The fields to write next: their latest values. */
	private final Map<String, String> pending = new LinkedHashMap<>();

	/** The fields read, and set since, by name; {@code null} for a field not kept. */
	private final Map<String, @Nullable String> kept = new HashMap<>();

	// guarded by this
	private int writes;

	// guarded by this
	private long lastWriteNanos;

	private volatile boolean written;

	JobRunState(ListenerOperations operations, String queue, Lease lease, long tag, Runnable leaseLost) {
		this.operations = operations;
		this.queue = queue;
		this.lease = lease;
		this.tag = tag;
		this.intervalNanos = operations.getProgressOperations().getProgressInterval().toNanos();
		this.leaseLost = leaseLost;
	}

	static void checkProgress(double fraction, @Nullable String message) {
		Assert.isTrue(fraction >= 0 && fraction <= 1,
				() -> "Progress must be a fraction from 0 to 1 (0.25 for a quarter done), not " + fraction);
		Assert.isTrue(message == null || message.length() <= JobContext.MAX_PROGRESS_MESSAGE_LENGTH,
				() -> "Progress message must be at most " + JobContext.MAX_PROGRESS_MESSAGE_LENGTH + " characters, not "
						+ message.length() + ": say how far the job is, and keep details in the job's own data");
	}

	/**
	 * Return the position of the chain step before a job's, which must be a chain step
	 * after the first.
	 */
	static int previousStep(JobContext context) {
		String step = context.getHeaders().get(ChainRequest.STEP_HEADER);
		Assert.state(step != null && context.getHeaders().get(ChainRequest.CHAIN_HEADER) != null && !"1".equals(step),
				() -> "Job " + context.getId() + " is not a chain step after the first: it has no step before it"
						+ " to read the result of");
		return Integer.parseInt(step) - 1;
	}

	static void checkStepName(@Nullable String name) {
		Assert.isTrue(name != null && !name.isEmpty() && name.length() <= JobContext.MAX_STEP_NAME_LENGTH,
				() -> "Step name must have 1 to " + JobContext.MAX_STEP_NAME_LENGTH + " characters, not '" + name
						+ "'");
	}

	static void checkCursor(String id, String json) {
		int size = json.getBytes(StandardCharsets.UTF_8).length;
		Assert.isTrue(size <= JobContext.MAX_CURSOR_SIZE,
				() -> "Cursor of job " + id + " is " + size + " bytes of JSON, over the limit of "
						+ JobContext.MAX_CURSOR_SIZE
						+ ": keep a position in the cursor (an id, an offset, a page token), not the data");
	}

	/**
	 * Return what earlier attempts of the job kept in a field, read once per run and
	 * field, or what this run set there since.
	 */
	synchronized @Nullable String kept(String field) {
		if (!this.kept.containsKey(field)) {
			this.kept.put(field,
					this.operations.getProgressOperations()
						.readProgress(this.queue, this.lease.id(), this.tag, List.of(field))
						.get(field));
		}
		return this.kept.get(field);
	}

	/**
	 * Set fields to write; they are written now when the interval since the last write
	 * passed.
	 */
	synchronized void set(Map<String, String> fields) {
		this.pending.putAll(fields);
		this.kept.putAll(fields);
		if (this.writes == 0 || System.nanoTime() - this.lastWriteNanos >= this.intervalNanos) {
			write();
		}
	}

	/**
	 * Write the fields set since the last write, if the interval since passed.
	 */
	synchronized void writeIfDue() {
		if (!this.pending.isEmpty() && System.nanoTime() - this.lastWriteNanos >= this.intervalNanos) {
			write();
		}
	}

	/**
	 * Write the fields set since the last write now.
	 * @return whether Redis has them: written now or before
	 */
	synchronized boolean flush() {
		return this.pending.isEmpty() || write();
	}

	/**
	 * Return whether the run wrote to the job's progress hash, which then goes with the
	 * job's completion.
	 */
	boolean isWritten() {
		return this.written;
	}

	// guarded by this
	private boolean write() {
		this.lastWriteNanos = System.nanoTime();
		Map<String, String> fields = new LinkedHashMap<>(this.pending);
		fields.put(ProgressFields.WRITES, Integer.toString(this.writes + 1));
		try {
			this.written = true;
			if (!this.operations.getProgressOperations().writeProgress(this.queue, this.lease, this.tag, fields)) {
				this.leaseLost.run();
				return false;
			}
		}
		catch (RuntimeException ex) {
			// written at the next interval
			logger.warn(
					"Could not write the progress of job " + this.lease.id() + " of queue '" + this.queue + "': " + ex);
			return false;
		}
		this.writes++;
		this.pending.clear();
		return true;
	}

}
