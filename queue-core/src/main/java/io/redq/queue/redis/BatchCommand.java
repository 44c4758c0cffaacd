package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import org.jspecify.annotations.Nullable;

/**
 * A batch checked and written as Redis stores it, under the id chosen when it was
 * dispatched, to be created later: what a transactional outbox row holds (see
 * {@link BatchOperations#createOnce}).
 *
 * @param id the batch id
 * @param deathPolicy what the batch does when a member dies
 * @param linger how long the batch is kept once it ended
 * @param members the members, each with its id and the batch's header
 * @param onSuccess the callback run when every member succeeded, or {@code null}
 * @param onComplete the callback run when the batch ended, or {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record BatchCommand(String id, BatchDeathPolicy deathPolicy, Duration linger, List<PreparedCommand> members,
		@Nullable PreparedCommand onSuccess, @Nullable PreparedCommand onComplete) {

	/** Separates the parts of a nested batch: no job's stored form holds it. */
	private static final String SEPARATOR = "\u0001";

	/**
	 * Return this batch, whose members are jobs, as a step of a chain keeps it until the
	 * step before succeeded: a command of the queue {@value BatchOperations#BATCH_QUEUE}
	 * under the batch id, whose body is {@code <policy><linger ms>}, its callbacks and
	 * its members, each in the form {@link StoredJob} gives, {@code \u0001} between.
	 * @return the batch as a command
	 */
	PreparedCommand nest() {
		StringJoiner body = new StringJoiner(SEPARATOR);
		body.add(((this.deathPolicy == BatchDeathPolicy.FAIL_FAST) ? "f" : "c") + this.linger.toMillis());
		body.add(StoredJob.format(this.onSuccess));
		body.add(StoredJob.format(this.onComplete));
		this.members.forEach((member) -> body.add(StoredJob.format(member)));
		return new PreparedCommand(BatchOperations.BATCH_QUEUE,
				new EnqueueCommand(this.id, Due.NOW, DuplicatePolicy.KEEP, body.toString()));
	}

	/**
	 * Read a batch from the command {@link #nest()} returned.
	 * @param nested the command
	 * @return the batch
	 */
	static BatchCommand unnest(PreparedCommand nested) {
		String[] parts = nested.command().body().split(SEPARATOR, -1);
		List<PreparedCommand> members = new ArrayList<>(parts.length - 3);
		for (int i = 3; i < parts.length; i++) {
			members.add(StoredJob.parse(parts[i]));
		}
		return new BatchCommand(nested.command().id(),
				(parts[0].charAt(0) == 'f') ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON,
				Duration.ofMillis(Long.parseLong(parts[0].substring(1))), List.copyOf(members), callback(parts[1]),
				callback(parts[2]));
	}

	private static @Nullable PreparedCommand callback(String stored) {
		return stored.isEmpty() ? null : StoredJob.parse(stored);
	}

}
