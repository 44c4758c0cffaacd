package io.redq.queue.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Jobs to run one after another as a chain, of any job names and queues: each step starts
 * only after the step before it succeeded. Build one with {@link #of(JobRequest...)}:
 *
 * <pre class="code">
 * ChainResult chain = dispatcher.dispatchChain(ChainRequest.of(resize, watermark, publish)
 *         .onFailure(JobRequest.of("report-broken-image", imageId).build())
 *         .build());
 * </pre>
 *
 * A step that dies ends the chain: the later steps never start, and the on-failure job,
 * when given, is enqueued once. Steps carry the chain id in the header
 * {@value #CHAIN_HEADER} and their position (from 1) in {@value #STEP_HEADER}; the
 * on-failure job carries the chain id and {@value #CALLBACK_HEADER} {@code failure}.
 * <p>
 * A step may be a batch ({@link Builder#step(BatchRequest)}): the step after it starts
 * only once the batch succeeded, and a batch that failed (under its own death policy) or
 * was cancelled ends the chain as a dead step does. Its id is {@code <chain id>:<step>},
 * the batch's id. A batch step may nest batches and chains of its own, down to
 * {@value BatchRequest#MAX_DEPTH} levels counting the outermost workflow, and holds at
 * most {@value #MAX_BATCH_STEP_MEMBERS} jobs, its nested workflows' included, since the
 * chain keeps it until it starts.
 *
 * @author Redq team
 * @since 0.1.0
 * @see JobDispatcher#dispatchChain(ChainRequest)
 */
public final class ChainRequest {

	/** The header that carries the chain id, on steps and the on-failure job. */
	public static final String CHAIN_HEADER = "redq-chain";

	/** The header that carries a step's position in its chain, from 1. */
	public static final String STEP_HEADER = "redq-chain-step";

	/** The header that says which callback of a chain a job is: {@code failure}. */
	public static final String CALLBACK_HEADER = "redq-chain-callback";

	/** The most steps a chain has. */
	public static final int MAX_STEPS = 1000;

	/** The most jobs a batch step holds, its nested workflows' included. */
	public static final int MAX_BATCH_STEP_MEMBERS = 1000;

	private final List<Object> steps;

	private final @Nullable JobRequest onFailure;

	private ChainRequest(Builder builder) {
		this.steps = List.copyOf(builder.steps);
		this.onFailure = builder.onFailure;
	}

	/**
	 * Start a chain of the given steps, in the order they run.
	 * @param steps the jobs, at least two, each without an id of its own: steps get ids
	 * of their own
	 * @return a builder
	 * @throws IllegalArgumentException when there are fewer than two steps or more than
	 * {@value #MAX_STEPS}, or a step has an id
	 */
	public static Builder of(JobRequest... steps) {
		Assert.notNull(steps, "steps must not be null");
		return of(Arrays.asList(steps));
	}

	/**
	 * Start a chain of the given steps, in the order they run.
	 * @param steps the jobs, at least two, each without an id of its own: steps get ids
	 * of their own
	 * @return a builder
	 * @throws IllegalArgumentException when there are fewer than two steps or more than
	 * {@value #MAX_STEPS}, or a step has an id
	 */
	public static Builder of(Collection<JobRequest> steps) {
		Assert.notNull(steps, "steps must not be null");
		checkCount(steps.size());
		Builder builder = new Builder();
		steps.forEach(builder::step);
		return builder;
	}

	/**
	 * Start a chain without steps: add them in the order they run with
	 * {@link Builder#step(JobRequest)} and {@link Builder#step(BatchRequest)}.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	private static void checkCount(int steps) {
		Assert.isTrue(steps >= 2,
				() -> "A chain needs at least two steps; got " + steps + ": dispatch a single job directly");
		Assert.isTrue(steps <= MAX_STEPS, () -> "A chain has at most " + MAX_STEPS + " steps; got " + steps);
	}

	private static void checkNoId(JobRequest request, String what) {
		Assert.isTrue(request.getId() == null,
				() -> what + " has the id '" + request.getId()
						+ "': chain steps and callbacks get ids of their own, so that each belongs to one chain; "
						+ "leave the id out and pass the business key in the payload");
	}

	/**
	 * Return the steps.
	 * @return the steps, in the order they run, each a {@link JobRequest} or a
	 * {@link BatchRequest}
	 */
	public List<Object> getSteps() {
		return this.steps;
	}

	/**
	 * Return how many levels the chain nests, counting itself: 1 when its steps are jobs.
	 * @return the depth
	 */
	int depth() {
		int nested = 0;
		for (Object step : this.steps) {
			if (step instanceof BatchRequest batch) {
				nested = Math.max(nested, batch.depth());
			}
		}
		return nested + 1;
	}

	/**
	 * Return how many jobs the chain holds as steps, its batch steps' included, the
	 * on-failure job excluded.
	 * @return the count
	 */
	int jobCount() {
		return this.steps.stream()
			.mapToInt((step) -> (step instanceof BatchRequest batch) ? batch.jobCount() : 1)
			.sum();
	}

	/**
	 * Return the job that runs when a step dies.
	 * @return the job, or {@code null} for none
	 */
	public @Nullable JobRequest getOnFailure() {
		return this.onFailure;
	}

	/**
	 * Builds a {@link ChainRequest}.
	 */
	public static final class Builder {

		private final List<Object> steps = new ArrayList<>();

		private @Nullable JobRequest onFailure;

		private Builder() {
		}

		/**
		 * Add a step that runs after the steps added before.
		 * @param step the job, without an id of its own
		 * @return this builder
		 */
		public Builder step(JobRequest step) {
			Assert.notNull(step, "steps must not contain null");
			checkNoId(step, "Chain step '" + step.getJobName() + "'");
			this.steps.add(step);
			return this;
		}

		/**
		 * Add a step that is a batch: it starts after the steps added before, and the
		 * step after it once the batch succeeded.
		 * @param batch the batch, which may nest workflows of its own
		 * @return this builder
		 * @throws IllegalArgumentException when the batch holds more than
		 * {@value #MAX_BATCH_STEP_MEMBERS} jobs, or the chain would nest more than
		 * {@value BatchRequest#MAX_DEPTH} levels
		 */
		public Builder step(BatchRequest batch) {
			Assert.notNull(batch, "A batch step must be a BatchRequest, not null");
			BatchRequest.checkNestedDepth(batch.depth(), "The batch step");
			int jobs = batch.jobCount();
			Assert.isTrue(jobs <= MAX_BATCH_STEP_MEMBERS,
					() -> "A batch step holds at most " + MAX_BATCH_STEP_MEMBERS + " jobs, its nested workflows' "
							+ "included, since the chain keeps it until it starts; got " + jobs + ". Split it into "
							+ "batch steps, or dispatch the batch from a step's handler");
			this.steps.add(batch);
			return this;
		}

		/**
		 * Run a job when a step dies (uses its attempts), which ends the chain.
		 * @param callback the job, without an id of its own
		 * @return this builder
		 */
		public Builder onFailure(JobRequest callback) {
			Assert.notNull(callback, "The on-failure callback must be a JobRequest, not null");
			checkNoId(callback, "The on-failure callback '" + callback.getJobName() + "'");
			this.onFailure = callback;
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 */
		public ChainRequest build() {
			checkCount(this.steps.size());
			return new ChainRequest(this);
		}

	}

}
