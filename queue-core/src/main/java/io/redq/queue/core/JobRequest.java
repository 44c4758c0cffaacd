package io.redq.queue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A job to dispatch, with its options. Build one with {@link #of(String, Object)} (by job
 * name) or {@link #of(Object)} (the job whose handler takes the payload's type):
 *
 * <pre class="code">
 * dispatcher.dispatch(JobRequest.of("close-auction", auctionId)
 *         .id("auction-" + auctionId, DuplicatePolicy.REPLACE)
 *         .at(auction.endsAt())
 *         .build());
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 * @see JobDispatcher
 */
public final class JobRequest {

	private final @Nullable String jobName;

	private final @Nullable Object payload;

	private final @Nullable String queue;

	private final Due due;

	private final @Nullable String id;

	private final DuplicatePolicy duplicatePolicy;

	private final Uniqueness uniqueness;

	private final @Nullable Integer maxAttempts;

	private final @Nullable Integer priority;

	private final @Nullable String group;

	private final Map<String, String> headers;

	private final boolean outsideTransaction;

	private JobRequest(Builder builder) {
		this.jobName = builder.jobName;
		this.payload = builder.payload;
		this.queue = builder.queue;
		this.due = builder.due;
		this.id = builder.id;
		this.duplicatePolicy = builder.duplicatePolicy;
		this.uniqueness = builder.uniqueness;
		this.maxAttempts = builder.maxAttempts;
		this.priority = builder.priority;
		this.group = builder.group;
		this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
		this.outsideTransaction = builder.outsideTransaction;
	}

	/**
	 * Start a request for the job with the given name.
	 * @param jobName the job name
	 * @param payload the payload, serialized as JSON
	 * @return a builder
	 */
	public static Builder of(String jobName, @Nullable Object payload) {
		Assert.hasText(jobName, "jobName must not be empty");
		return new Builder(jobName, payload);
	}

	/**
	 * Start a request for the one job whose handler takes the payload's type.
	 * @param payload the payload, serialized as JSON
	 * @return a builder
	 */
	public static Builder of(Object payload) {
		Assert.notNull(payload, "payload must not be null");
		return new Builder(null, payload);
	}

	/**
	 * Return the job name, or {@code null} when the job is found by payload type.
	 * @return the job name
	 */
	public @Nullable String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the payload.
	 * @return the payload
	 */
	public @Nullable Object getPayload() {
		return this.payload;
	}

	/**
	 * Return the queue, or {@code null} for the job's own queue.
	 * @return the queue
	 */
	public @Nullable String getQueue() {
		return this.queue;
	}

	/**
	 * Return when the job becomes ready.
	 * @return the due time
	 */
	public Due getDue() {
		return this.due;
	}

	/**
	 * Return the caller-chosen id, or {@code null} for a generated one.
	 * @return the id
	 */
	public @Nullable String getId() {
		return this.id;
	}

	/**
	 * Return what happens when a job with the caller-chosen id is already pending.
	 * @return the duplicate policy
	 */
	public DuplicatePolicy getDuplicatePolicy() {
		return this.duplicatePolicy;
	}

	/**
	 * Return what happens to this dispatch when the job with the caller-chosen id is
	 * running.
	 * @return the uniqueness
	 */
	public Uniqueness getUniqueness() {
		return this.uniqueness;
	}

	/**
	 * Return the attempts override, or {@code null} for the job's own.
	 * @return the maximum attempts
	 */
	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Return the priority level, or {@code null} for the job's own (see
	 * {@link JobPriority}).
	 * @return the priority level
	 */
	public @Nullable Integer getPriority() {
		return this.priority;
	}

	/**
	 * Return the group whose jobs take turns with other groups' jobs of the same level,
	 * or {@code null} for none.
	 * @return the group
	 */
	public @Nullable String getGroup() {
		return this.group;
	}

	/**
	 * Return the headers.
	 * @return the headers, never {@code null}
	 */
	public Map<String, String> getHeaders() {
		return this.headers;
	}

	/**
	 * Return whether the job is sent at once even inside a transaction, instead of after
	 * it commits.
	 * @return whether the dispatch ignores the transaction
	 * @since 0.1.0
	 */
	public boolean isOutsideTransaction() {
		return this.outsideTransaction;
	}

	/**
	 * Builds a {@link JobRequest}.
	 */
	public static final class Builder {

		private final @Nullable String jobName;

		private final @Nullable Object payload;

		private @Nullable String queue;

		private Due due = Due.NOW;

		private @Nullable String id;

		private DuplicatePolicy duplicatePolicy = DuplicatePolicy.KEEP;

		private Uniqueness uniqueness = Uniqueness.UNTIL_COMPLETED;

		private @Nullable Integer maxAttempts;

		private @Nullable Integer priority;

		private @Nullable String group;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private boolean outsideTransaction;

		private Builder(@Nullable String jobName, @Nullable Object payload) {
			this.jobName = jobName;
			this.payload = payload;
		}

		/**
		 * Send the job to this queue instead of the job's own.
		 * @param queue the queue name
		 * @return this builder
		 */
		public Builder queue(String queue) {
			this.queue = QueueNames.validate(queue);
			return this;
		}

		/**
		 * Make the job ready after a delay, measured on the Redis clock. A negative delay
		 * means now. Replaces any earlier {@link #at(Instant)}.
		 * @param delay the delay
		 * @return this builder
		 * @throws IllegalArgumentException for a delay that ends after the year 9999
		 */
		public Builder delay(Duration delay) {
			this.due = Due.after(delay);
			return this;
		}

		/**
		 * Make the job ready at an instant (millisecond resolution); an instant in the
		 * past means now. Replaces any earlier {@link #delay(Duration)}.
		 * @param instant when the job becomes ready
		 * @return this builder
		 * @throws IllegalArgumentException for an instant after the year 9999
		 */
		public Builder at(Instant instant) {
			this.due = Due.at(instant);
			return this;
		}

		/**
		 * Use a caller-chosen id; a pending job with the same id is kept and this
		 * dispatch dropped.
		 * @param id the id, e.g. a business key such as {@code order-17}
		 * @return this builder
		 */
		public Builder id(String id) {
			return id(id, DuplicatePolicy.KEEP);
		}

		/**
		 * Use a caller-chosen id with the given duplicate policy.
		 * @param id the id, e.g. a business key such as {@code order-17}
		 * @param duplicatePolicy what to do when a job with this id is already pending
		 * @return this builder
		 */
		public Builder id(String id, DuplicatePolicy duplicatePolicy) {
			this.id = QueueNames.validateId(id);
			this.duplicatePolicy = duplicatePolicy;
			return this;
		}

		/**
		 * Set how long the caller-chosen id stays unique: until the running job completes
		 * (a dispatch meanwhile is dropped, the default) or until it starts (a dispatch
		 * meanwhile is queued to run after it).
		 * @param uniqueness the uniqueness
		 * @return this builder
		 */
		public Builder unique(Uniqueness uniqueness) {
			this.uniqueness = uniqueness;
			return this;
		}

		/**
		 * Debounce under a caller-chosen id: repeated dispatches within {@code window} of
		 * the first one collapse into one run, {@code window} after the first dispatch,
		 * with the last payload. A dispatch while that run is going on starts the next
		 * window.
		 * @param id the id, e.g. {@code reindex-product-5}
		 * @param window how long dispatches are collected
		 * @return this builder
		 */
		public Builder debounce(String id, Duration window) {
			id(id, DuplicatePolicy.REPLACE_PAYLOAD);
			this.uniqueness = Uniqueness.UNTIL_STARTED;
			return delay(window);
		}

		/**
		 * Override how many times the job is tried.
		 * @param maxAttempts the maximum attempts, at least 1
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			Assert.isTrue(maxAttempts >= 1, () -> "maxAttempts must be at least 1, not " + maxAttempts);
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Override the job's priority level for this dispatch: a higher level is reserved
		 * before a lower one, equal levels in order, each level that has jobs keeping a
		 * share of the reservations (see {@link JobPriority}).
		 * @param priority the level, from {@value JobPriority#LOWEST} to
		 * {@value JobPriority#HIGHEST}
		 * @return this builder
		 */
		public Builder priority(int priority) {
			this.priority = JobPriority.validate(priority, "The dispatch");
			return this;
		}

		/**
		 * Put the job in a group, such as the tenant it works for: within a priority
		 * level, the groups that have ready jobs take turns, so that one group's backlog
		 * delays another group's job by about one job per group that has jobs, not by the
		 * backlog. Jobs without a group take their turn as one group.
		 * @param group 1 to 128 letters, digits and {@code . _ : @ -}
		 * @return this builder
		 */
		public Builder group(String group) {
			this.group = JobPriority.validateGroup(group);
			return this;
		}

		/**
		 * Add a header that travels with the job.
		 * @param name the header name
		 * @param value the header value
		 * @return this builder
		 */
		public Builder header(String name, String value) {
			this.headers.put(name, value);
			return this;
		}

		/**
		 * Send the job at once even when the dispatch is made inside a transaction,
		 * instead of after the transaction commits (or through the outbox): the job is
		 * sent whether the transaction commits or rolls back.
		 * @return this builder
		 * @since 0.1.0
		 */
		public Builder outsideTransaction() {
			this.outsideTransaction = true;
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 */
		public JobRequest build() {
			return new JobRequest(this);
		}

	}

}
