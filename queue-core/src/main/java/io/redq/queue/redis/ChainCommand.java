package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;

import org.jspecify.annotations.Nullable;

/**
 * A chain checked and written as Redis stores it, under the id chosen when it was
 * dispatched, to be created later: what a transactional outbox row holds (see
 * {@link ChainOperations#createOnce}).
 *
 * @param id the chain id
 * @param linger how long the chain is kept once it ended
 * @param steps the steps, in order, each with its id {@code <chain id>:<step>} and the
 * chain's headers; a batch step as {@link BatchCommand#nest()} gives it
 * @param onFailure the job run when a step dies, or {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record ChainCommand(String id, Duration linger, List<PreparedCommand> steps,
		@Nullable PreparedCommand onFailure) {

	/**
	 * Return this chain as a member of a batch keeps it until it is created: a command of
	 * the queue {@value BatchOperations#CHAIN_QUEUE} under the chain id, whose body is
	 * its linger (ms), its on-failure job and its steps, each in the form
	 * {@link StoredJob} gives, {@code \u0001} between, a batch step's separators moved
	 * one character up (see {@link BatchCommand#nest()}).
	 * @return the chain as a command
	 */
	PreparedCommand nest() {
		StringJoiner body = new StringJoiner(String.valueOf(BatchCommand.SEPARATOR));
		body.add(Long.toString(this.linger.toMillis()));
		body.add(StoredJob.format(this.onFailure));
		this.steps.forEach((step) -> body.add(BatchCommand.embed(StoredJob.format(step))));
		return new PreparedCommand(BatchOperations.CHAIN_QUEUE,
				new EnqueueCommand(this.id, Due.NOW, DuplicatePolicy.KEEP, body.toString()));
	}

	/**
	 * Read a chain from the command {@link #nest()} returned.
	 * @param nested the command
	 * @return the chain
	 */
	static ChainCommand unnest(PreparedCommand nested) {
		String[] parts = BatchCommand.split(nested.command().body());
		List<PreparedCommand> steps = new ArrayList<>(parts.length - 2);
		for (int i = 2; i < parts.length; i++) {
			steps.add(StoredJob.parse(BatchCommand.unembed(parts[i])));
		}
		return new ChainCommand(nested.command().id(), Duration.ofMillis(Long.parseLong(parts[0])), List.copyOf(steps),
				BatchCommand.callback(parts[1]));
	}

	/**
	 * Return how many levels the chain nests, counting itself: 1 when its steps are jobs.
	 * @return the depth
	 */
	public int depth() {
		int nested = 0;
		for (PreparedCommand step : this.steps) {
			nested = Math.max(nested, BatchCommand.depth(step));
		}
		return nested + 1;
	}

	/**
	 * Return the jobs the chain dispatches: its steps', its batch steps' and its
	 * on-failure job, in order.
	 * @return the jobs
	 */
	public List<PreparedCommand> jobs() {
		List<PreparedCommand> jobs = new ArrayList<>();
		this.steps.forEach((step) -> jobs.addAll(BatchCommand.jobs(step)));
		if (this.onFailure != null) {
			jobs.add(this.onFailure);
		}
		return jobs;
	}

}
