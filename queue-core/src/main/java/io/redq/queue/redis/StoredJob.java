package io.redq.queue.redis;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;
import org.jspecify.annotations.Nullable;

/**
 * The form of a prepared job kept in a workflow's state until it is enqueued (a batch's
 * callback, a chain's later step or on-failure job), as {@code batch.lua} and
 * {@code chain.lua} keep it: {@code <queue>\n<id>\n<due mode>\n<due value>\n<body>}, the
 * way the enqueue script takes it. A job read back is kept if its id exists.
 *
 * @author Redq team
 */
final class StoredJob {

	private StoredJob() {
	}

	/**
	 * Return a prepared job in the stored form.
	 * @param job the job, or {@code null}
	 * @return the stored form, or {@code ""} for none
	 */
	static String format(@Nullable PreparedJob job) {
		return format(PreparedBatch.command(job));
	}

	/**
	 * Return a job's command in the stored form.
	 * @param job the job, or {@code null}
	 * @return the stored form, or {@code ""} for none
	 */
	static String format(@Nullable PreparedCommand job) {
		if (job == null) {
			return "";
		}
		EnqueueCommand command = job.command();
		return String.join("\n", job.queue(), command.id(), command.due().absolute() ? "a" : "d",
				Long.toString(command.due().millis()), command.body());
	}

	/**
	 * Read a job from its stored form.
	 * @param stored the stored form
	 * @return the job
	 */
	static PreparedCommand parse(String stored) {
		String[] parts = stored.split("\n", 5);
		Due due = new Due("a".equals(parts[2]), Long.parseLong(parts[3]));
		return new PreparedCommand(parts[0],
				new EnqueueCommand(parts[1], due, DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED, parts[4]));
	}

}
