package io.redq.queue.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Jobs to dispatch as one batch, of any job names and queues, with callbacks that are
 * jobs themselves. Build one with {@link #of(Collection)}:
 *
 * <pre class="code">
 * BatchResult batch = dispatcher.dispatchBatch(BatchRequest.of(mails)
 *         .onSuccess(JobRequest.of("report-sent", campaignId).build())
 *         .onComplete(JobRequest.of("close-campaign", campaignId).build())
 *         .failFast()
 *         .build());
 * </pre>
 *
 * Each callback is enqueued at most once, when the batch ends (see
 * {@link BatchDeathPolicy}), and runs at least once like every job.
 * <p>
 * A member may be a batch ({@link Builder#batch}) or a chain ({@link Builder#chain}) of
 * its own, which counts as one member: it succeeds when that batch or chain succeeded,
 * and dies when it failed (under its own death policy, or a step died), its end handed
 * over once, level by level. A nested batch or chain may nest workflows of its own, down
 * to {@value #MAX_DEPTH} levels counting the outermost. Members and callbacks carry the
 * batch id in the header {@value #BATCH_HEADER}; a callback also carries
 * {@value #CALLBACK_HEADER} ({@code success} or {@code complete}).
 *
 * @author Redq team
 * @since 0.1.0
 * @see JobDispatcher#dispatchBatch(BatchRequest)
 */
public final class BatchRequest {

	/** The header that carries the batch id, on members and callbacks. */
	public static final String BATCH_HEADER = "redq-batch";

	/**
	 * The header that says which callback a job is: {@code success} or {@code complete}.
	 */
	public static final String CALLBACK_HEADER = "redq-batch-callback";

	/**
	 * The most levels a workflow nests, counting itself: a batch of jobs is one level, a
	 * batch with a chain of jobs as a member two.
	 */
	public static final int MAX_DEPTH = 8;

	private final List<JobRequest> members;

	private final List<BatchRequest> batches;

	private final List<ChainRequest> chains;

	private final @Nullable JobRequest onSuccess;

	private final @Nullable JobRequest onComplete;

	private final BatchDeathPolicy deathPolicy;

	private BatchRequest(Builder builder) {
		this.members = List.copyOf(builder.members);
		this.batches = List.copyOf(builder.batches);
		this.chains = List.copyOf(builder.chains);
		this.onSuccess = builder.onSuccess;
		this.onComplete = builder.onComplete;
		this.deathPolicy = builder.deathPolicy;
	}

	/**
	 * Start a batch of the given members.
	 * @param members the jobs, each without an id of its own: members get generated ids
	 * @return a builder
	 * @throws IllegalArgumentException when there is no member, or a member has an id
	 */
	public static Builder of(Collection<JobRequest> members) {
		Assert.notNull(members, "members must not be null");
		Assert.isTrue(!members.isEmpty(),
				"A batch needs at least one member; to run a job after nothing, dispatch it directly");
		Builder builder = new Builder();
		members.forEach(builder::member);
		return builder;
	}

	/**
	 * Start a batch without members: add them with {@link Builder#member},
	 * {@link Builder#batch} and {@link Builder#chain}.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	private static void checkNoId(JobRequest request, String what) {
		Assert.isTrue(request.getId() == null,
				() -> what + " has the id '" + request.getId()
						+ "': batch members and callbacks get ids of their own, so that each belongs to one batch; "
						+ "leave the id out and pass the business key in the payload");
	}

	/**
	 * Return the members.
	 * @return the members, in order
	 */
	public List<JobRequest> getMembers() {
		return this.members;
	}

	/**
	 * Return the members that are batches of their own.
	 * @return the batches, in order
	 */
	public List<BatchRequest> getBatches() {
		return this.batches;
	}

	/**
	 * Return the members that are chains.
	 * @return the chains, in order
	 */
	public List<ChainRequest> getChains() {
		return this.chains;
	}

	/**
	 * Return how many levels the batch nests, counting itself: 1 when its members are
	 * jobs.
	 * @return the depth
	 */
	int depth() {
		int nested = 0;
		for (BatchRequest batch : this.batches) {
			nested = Math.max(nested, batch.depth());
		}
		for (ChainRequest chain : this.chains) {
			nested = Math.max(nested, chain.depth());
		}
		return nested + 1;
	}

	/**
	 * Return how many jobs the batch holds, its nested workflows' included, callbacks
	 * excluded.
	 * @return the count
	 */
	int jobCount() {
		return this.members.size() + this.batches.stream().mapToInt(BatchRequest::jobCount).sum()
				+ this.chains.stream().mapToInt(ChainRequest::jobCount).sum();
	}

	/**
	 * Refuse a workflow nested below {@link #MAX_DEPTH} levels.
	 * @param depth the nested workflow's depth
	 * @param what what the nested workflow is, for the message
	 */
	static void checkNestedDepth(int depth, String what) {
		Assert.isTrue(depth < MAX_DEPTH, () -> what + " nests " + depth + " levels, so the workflow would nest "
				+ (depth + 1) + ": workflows nest at most " + MAX_DEPTH + " levels deep. Flatten a level (a batch "
				+ "of batches of jobs is a batch of the jobs), or dispatch the innermost workflows from a handler");
	}

	/**
	 * Return the job that runs when every member succeeded.
	 * @return the job, or {@code null} for none
	 */
	public @Nullable JobRequest getOnSuccess() {
		return this.onSuccess;
	}

	/**
	 * Return the job that runs when the batch ends, whatever its outcome.
	 * @return the job, or {@code null} for none
	 */
	public @Nullable JobRequest getOnComplete() {
		return this.onComplete;
	}

	/**
	 * Return what the batch does when a member dies.
	 * @return the policy
	 */
	public BatchDeathPolicy getDeathPolicy() {
		return this.deathPolicy;
	}

	/**
	 * Builds a {@link BatchRequest}.
	 */
	public static final class Builder {

		private final List<JobRequest> members = new ArrayList<>();

		private final List<BatchRequest> batches = new ArrayList<>();

		private final List<ChainRequest> chains = new ArrayList<>();

		private @Nullable JobRequest onSuccess;

		private @Nullable JobRequest onComplete;

		private BatchDeathPolicy deathPolicy = BatchDeathPolicy.CARRY_ON;

		private Builder() {
		}

		/**
		 * Add a member.
		 * @param member the job, without an id of its own: members get generated ids
		 * @return this builder
		 */
		public Builder member(JobRequest member) {
			Assert.notNull(member, "members must not contain null");
			checkNoId(member, "Batch member '" + member.getJobName() + "'");
			this.members.add(member);
			return this;
		}

		/**
		 * Add a batch as one member: it succeeds when that batch succeeded, and dies when
		 * it failed or was cancelled. The member's id is the nested batch's id.
		 * @param batch the batch, which may nest workflows of its own
		 * @return this builder
		 * @throws IllegalArgumentException when the batch would nest more than
		 * {@value #MAX_DEPTH} levels
		 */
		public Builder batch(BatchRequest batch) {
			Assert.notNull(batch, "A nested batch must be a BatchRequest, not null");
			checkNestedDepth(batch.depth(), "The nested batch");
			this.batches.add(batch);
			return this;
		}

		/**
		 * Add a chain as one member: it succeeds when the chain succeeded, and dies when
		 * a step died or the chain was cancelled. The member's id is the chain's id.
		 * @param chain the chain, whose steps may be batches
		 * @return this builder
		 * @throws IllegalArgumentException when the chain would nest more than
		 * {@value #MAX_DEPTH} levels
		 */
		public Builder chain(ChainRequest chain) {
			Assert.notNull(chain, "A nested chain must be a ChainRequest, not null");
			checkNestedDepth(chain.depth(), "The nested chain");
			this.chains.add(chain);
			return this;
		}

		/**
		 * Run a job once every member succeeded.
		 * @param callback the job, without an id of its own
		 * @return this builder
		 */
		public Builder onSuccess(JobRequest callback) {
			this.onSuccess = callback(callback, "on-success");
			return this;
		}

		/**
		 * Run a job once the batch ends: every member succeeded or died, the first died
		 * under {@link #failFast()}, or it was cancelled.
		 * @param callback the job, without an id of its own
		 * @return this builder
		 */
		public Builder onComplete(JobRequest callback) {
			this.onComplete = callback(callback, "on-complete");
			return this;
		}

		private static JobRequest callback(JobRequest callback, String what) {
			Assert.notNull(callback, () -> "The " + what + " callback must be a JobRequest, not null");
			checkNoId(callback, "The " + what + " callback '" + callback.getJobName() + "'");
			return callback;
		}

		/**
		 * End the batch at its first dead member ({@link BatchDeathPolicy#FAIL_FAST}).
		 * @return this builder
		 */
		public Builder failFast() {
			this.deathPolicy = BatchDeathPolicy.FAIL_FAST;
			return this;
		}

		/**
		 * Wait for every member whatever dies ({@link BatchDeathPolicy#CARRY_ON}, the
		 * default).
		 * @return this builder
		 */
		public Builder carryOn() {
			this.deathPolicy = BatchDeathPolicy.CARRY_ON;
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 */
		public BatchRequest build() {
			Assert.isTrue(!this.members.isEmpty() || !this.batches.isEmpty() || !this.chains.isEmpty(),
					"A batch needs at least one member; to run a job after nothing, dispatch it directly");
			return new BatchRequest(this);
		}

	}

}
