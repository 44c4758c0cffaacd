package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A batch checked and written as Redis stores it, under the id chosen when it was
 * dispatched, to be created later: what a transactional outbox row holds (see
 * {@link BatchCreationOperations#createOnce}).
 * <p>
 * A member that is a batch or a chain of its own is a command of the queue
 * {@code {batch}} or {@code {chain}} under its id, whose body holds it as {@link #nest()}
 * and {@link ChainCommand#nest()} give it.
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

	/**
	 * Separates the parts of a nested workflow: no job's stored form holds it. A nested
	 * workflow's own parts inside it are separated by the next character, and so on one
	 * character per level (see {@link #embed}).
	 */
	static final char SEPARATOR = '\u0001';

	/**
	 * Return this batch as a step of a chain or a member of a batch keeps it until it is
	 * created: a command of the queue {@value BatchOperations#BATCH_QUEUE} under the
	 * batch id, whose body is {@code <policy><linger ms>}, its callbacks and its members,
	 * each in the form {@link StoredJob} gives, {@code \u0001} between. A member that
	 * nests has its separators moved one character up ({@link #embed}), so a batch whose
	 * members are jobs is stored as before nesting went deeper than one level.
	 * @return the batch as a command
	 */
	PreparedCommand nest() {
		StringJoiner body = new StringJoiner(String.valueOf(SEPARATOR));
		body.add(((this.deathPolicy == BatchDeathPolicy.FAIL_FAST) ? "f" : "c") + this.linger.toMillis());
		body.add(StoredJob.format(this.onSuccess));
		body.add(StoredJob.format(this.onComplete));
		this.members.forEach((member) -> body.add(embed(StoredJob.format(member))));
		return new PreparedCommand(BatchOperations.BATCH_QUEUE,
				new EnqueueCommand(this.id, Due.NOW, DuplicatePolicy.KEEP, body.toString()));
	}

	/**
	 * Read a batch from the command {@link #nest()} returned.
	 * @param nested the command
	 * @return the batch
	 */
	static BatchCommand unnest(PreparedCommand nested) {
		String[] parts = split(nested.command().body());
		List<PreparedCommand> members = new ArrayList<>(parts.length - 3);
		for (int i = 3; i < parts.length; i++) {
			members.add(StoredJob.parse(unembed(parts[i])));
		}
		return new BatchCommand(nested.command().id(),
				(parts[0].charAt(0) == 'f') ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON,
				Duration.ofMillis(Long.parseLong(parts[0].substring(1))), List.copyOf(members), callback(parts[1]),
				callback(parts[2]));
	}

	/**
	 * Return how many levels the batch nests, counting itself: 1 when its members are
	 * jobs.
	 * @return the depth
	 */
	public int depth() {
		int nested = 0;
		for (PreparedCommand member : this.members) {
			nested = Math.max(nested, depth(member));
		}
		return nested + 1;
	}

	/**
	 * Return the jobs the batch dispatches: its members', its nested workflows' and its
	 * callbacks, in order.
	 * @return the jobs
	 */
	public List<PreparedCommand> jobs() {
		List<PreparedCommand> jobs = new ArrayList<>();
		this.members.forEach((member) -> jobs.addAll(jobs(member)));
		if (this.onSuccess != null) {
			jobs.add(this.onSuccess);
		}
		if (this.onComplete != null) {
			jobs.add(this.onComplete);
		}
		return jobs;
	}

	/**
	 * Return how many levels a member or step nests: 0 for a job.
	 */
	static int depth(PreparedCommand member) {
		return switch (member.queue()) {
			case BatchOperations.BATCH_QUEUE -> unnest(member).depth();
			case BatchOperations.CHAIN_QUEUE -> ChainCommand.unnest(member).depth();
			default -> 0;
		};
	}

	/**
	 * Return the jobs a member or step dispatches: itself for a job.
	 */
	static List<PreparedCommand> jobs(PreparedCommand member) {
		return switch (member.queue()) {
			case BatchOperations.BATCH_QUEUE -> unnest(member).jobs();
			case BatchOperations.CHAIN_QUEUE -> ChainCommand.unnest(member).jobs();
			default -> List.of(member);
		};
	}

	/**
	 * Return a nested workflow's stored form as the workflow it is nested in holds it:
	 * each separator moved one character up, so that the outer workflow's split leaves it
	 * whole. A job's stored form holds none and is left as is.
	 * @throws IllegalArgumentException when the form nests too deep to move up
	 */
	static String embed(String stored) {
		return shift(stored, 1);
	}

	/**
	 * Return a nested workflow's stored form from what {@link #embed} returned.
	 */
	static String unembed(String embedded) {
		return shift(embedded, -1);
	}

	private static String shift(String text, int by) {
		char last = (char) (SEPARATOR + BatchRequest.MAX_DEPTH - 1);
		StringBuilder shifted = null;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c >= SEPARATOR && c <= last) {
				Assert.isTrue(c + by <= last, "A workflow nests more than " + BatchRequest.MAX_DEPTH + " levels");
				if (shifted == null) {
					shifted = new StringBuilder(text);
				}
				shifted.setCharAt(i, (char) (c + by));
			}
		}
		return (shifted != null) ? shifted.toString() : text;
	}

	/**
	 * Split a nested workflow's body into its parts.
	 */
	static String[] split(String body) {
		return body.split(String.valueOf(SEPARATOR), -1);
	}

	static @Nullable PreparedCommand callback(String stored) {
		return stored.isEmpty() ? null : StoredJob.parse(stored);
	}

}
