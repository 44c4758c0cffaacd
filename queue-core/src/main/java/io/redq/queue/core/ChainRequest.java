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

	private final List<JobRequest> steps;

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
		Assert.isTrue(steps.size() >= 2,
				() -> "A chain needs at least two steps; got " + steps.size() + ": dispatch a single job directly");
		Assert.isTrue(steps.size() <= MAX_STEPS,
				() -> "A chain has at most " + MAX_STEPS + " steps; got " + steps.size());
		for (JobRequest step : steps) {
			Assert.notNull(step, "steps must not contain null");
			checkNoId(step, "Chain step '" + step.getJobName() + "'");
		}
		return new Builder(steps);
	}

	private static void checkNoId(JobRequest request, String what) {
		Assert.isTrue(request.getId() == null,
				() -> what + " has the id '" + request.getId()
						+ "': chain steps and callbacks get ids of their own, so that each belongs to one chain; "
						+ "leave the id out and pass the business key in the payload");
	}

	/**
	 * Return the steps.
	 * @return the steps, in the order they run
	 */
	public List<JobRequest> getSteps() {
		return this.steps;
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

		private final List<JobRequest> steps;

		private @Nullable JobRequest onFailure;

		private Builder(Collection<JobRequest> steps) {
			this.steps = new ArrayList<>(steps);
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
			return new ChainRequest(this);
		}

	}

}
