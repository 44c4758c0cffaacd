package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.ChainResult;
import org.jspecify.annotations.Nullable;

/**
 * A chain whose steps and on-failure job were checked, passed through the dispatch
 * interceptors and written, under a chain id chosen at once, not sent yet: for a chain
 * dispatched inside a transaction, sent after the commit
 * ({@link WorkflowDispatcher#sendChain(PreparedChain)}) or stored in a transactional
 * outbox ({@link #command()}). It tells the interceptors how its dispatch ended.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class PreparedChain {

	private final String id;

	private final Duration linger;

	/** Each a {@link PreparedJob} or, for a batch step, a {@link PreparedBatch}. */
	private final List<Object> steps;

	private final @Nullable PreparedJob onFailure;

	PreparedChain(String id, Duration linger, List<Object> steps, @Nullable PreparedJob onFailure) {
		this.id = id;
		this.linger = linger;
		this.steps = List.copyOf(steps);
		this.onFailure = onFailure;
	}

	/**
	 * Return the chain id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	Duration linger() {
		return this.linger;
	}

	List<Object> steps() {
		return this.steps;
	}

	@Nullable PreparedJob onFailure() {
		return this.onFailure;
	}

	/**
	 * Return the chain as Redis stores it, for an outbox row.
	 * @return the chain
	 */
	public ChainCommand command() {
		return new ChainCommand(this.id, this.linger, this.steps.stream().map(PreparedChain::command).toList(),
				PreparedBatch.command(this.onFailure));
	}

	/**
	 * Return what its dispatch returns, sent at once or deferred until a transaction
	 * commits: the chain id and its steps' ids.
	 * @return the result
	 */
	public ChainResult result() {
		return new ChainResult(this.id,
				this.steps.stream()
					.map((step) -> (step instanceof PreparedJob job) ? job.id() : ((PreparedBatch) step).id())
					.toList());
	}

	/**
	 * Tell the interceptors that every step and the on-failure job were dispatched: a
	 * transactional outbox that creates the chain committed it.
	 */
	public void dispatched() {
		this.steps.forEach(PreparedChain::stepDispatched);
		if (this.onFailure != null) {
			this.onFailure.dispatched();
		}
	}

	/**
	 * Tell the interceptors that no step was dispatched.
	 * @param ex why
	 */
	public void failed(Exception ex) {
		this.steps.forEach((step) -> stepFailed(step, ex));
		if (this.onFailure != null) {
			this.onFailure.failed(ex);
		}
	}

	/**
	 * Return a step as the chain stores it: a batch step as {@link BatchCommand#nest}
	 * gives it.
	 */
	private static PreparedCommand command(Object step) {
		return (step instanceof PreparedJob job) ? new PreparedCommand(job.queue(), job.command())
				: ((PreparedBatch) step).command().nest();
	}

	static void stepDispatched(Object step) {
		if (step instanceof PreparedJob job) {
			job.dispatched();
		}
		else {
			((PreparedBatch) step).dispatched();
		}
	}

	static void stepFailed(Object step, Exception ex) {
		if (step instanceof PreparedJob job) {
			job.failed(ex);
		}
		else {
			((PreparedBatch) step).failed(ex);
		}
	}

}
