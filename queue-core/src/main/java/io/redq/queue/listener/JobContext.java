package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import io.redq.queue.core.BatchRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a running job knows about itself. Declare a parameter of this type on a
 * {@code @QueuedJob} method to get it.
 *
 * <p>
 * The id is stable across attempts: use it as an idempotency key, since a job runs again
 * if its worker dies or stalls past its lease.
 *
 * <p>
 * A long job reports how far it has come ({@link #reportProgress}), and keeps its place
 * across attempts: {@link #iterate} keeps a cursor in Redis and gives it to the next
 * attempt, {@link #step} runs a named step once per job. Outside a container (a test's
 * context, say) these run in memory: nothing is reported or kept.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobContext {

	/** The longest progress message, in characters. */
	int MAX_PROGRESS_MESSAGE_LENGTH = 200;

	/** The largest cursor, in bytes of JSON. */
	int MAX_CURSOR_SIZE = 4096;

	/** The longest step name, in characters. */
	int MAX_STEP_NAME_LENGTH = 100;

	/**
	 * Return the job id.
	 * @return the id
	 */
	String getId();

	/**
	 * Return the job name.
	 * @return the name
	 */
	String getJobName();

	/**
	 * Return the queue.
	 * @return the queue name
	 */
	String getQueue();

	/**
	 * Return which attempt this is, starting at 1.
	 * @return the attempt
	 */
	int getAttempt();

	/**
	 * Return how many attempts the job gets.
	 * @return the maximum attempts
	 */
	int getMaxAttempts();

	/**
	 * Return when the job was enqueued (Redis clock).
	 * @return the creation time
	 */
	Instant getCreatedAt();

	/**
	 * Return when the job became ready (Redis clock).
	 * @return the due time
	 */
	Instant getAvailableAt();

	/**
	 * Return the headers the job was dispatched with.
	 * @return the headers, never {@code null}
	 */
	Map<String, String> getHeaders();

	/**
	 * Return the batch this job is a member or a callback of: its counts and its members'
	 * results.
	 * @return the batch, or empty when the job belongs to none
	 * @throws IllegalStateException outside a container, which cannot read Redis
	 * @see io.redq.queue.core.BatchRequest#BATCH_HEADER
	 */
	default Optional<JobBatch> getBatch() {
		String batchId = getHeaders().get(BatchRequest.BATCH_HEADER);
		Assert.state(batchId == null, () -> "Job " + getId() + " belongs to batch " + batchId
				+ ", which is kept in Redis: only a container's context reads it");
		return Optional.empty();
	}

	/**
	 * Return the result of the chain step before this one, read from its queue. The step
	 * before succeeded, since this one runs.
	 * @param <T> the result's type
	 * @param type the result's type, which its JSON is read as
	 * @return the result, empty when the step before returned nothing, or when its result
	 * expired ({@code redq.results.time-to-live} counts from its completion)
	 * @throws IllegalStateException when this job is not a chain step after the first,
	 * when the chain is no longer kept, or outside a container, which cannot read Redis
	 * @throws IllegalArgumentException when the result cannot be read as {@code type}
	 * @see io.redq.queue.core.ChainRequest#STEP_HEADER
	 */
	default <T> Optional<T> getPreviousResult(Class<T> type) {
		JobRunState.previousStep(this);
		throw new IllegalStateException("Job " + getId()
				+ " is a chain step whose chain is kept in Redis: only a container's context reads it");
	}

	/**
	 * Return whether this worker lost the job's lease: it expired (the process stalled)
	 * or the job timed out, and the job may run elsewhere. A handler that sees this
	 * should stop: its result is refused if another worker reserved the job meanwhile.
	 * @return whether the lease was lost
	 */
	boolean isLeaseLost();

	/**
	 * Extend the job's lease to {@code duration} from now (a longer lease is kept), and
	 * with it the limits the job holds (its exclusive key, its place under a running
	 * limit). The container already renews the lease while the handler runs; call this
	 * before a long step that could outlast a stalled renewal.
	 * @param duration the new lease duration
	 * @return {@code false} when the lease was already lost
	 */
	boolean extendLease(Duration duration);

	/**
	 * Report how far the job has come, for the dashboard and
	 * {@link io.redq.queue.core.JobQueueOperations#progress}. Call it as often as you
	 * like: Redis gets the latest values at most once per {@code redq.progress.interval}
	 * (1 s by default), the first at once and the last within about an interval. The
	 * progress is kept across attempts and deleted when the job completes.
	 * @param fraction the fraction done, from 0 to 1
	 * @param message what to show beside it, at most
	 * {@value #MAX_PROGRESS_MESSAGE_LENGTH} characters, or {@code null}
	 * @throws IllegalArgumentException when the fraction is out of range or the message
	 * too long
	 */
	default void reportProgress(double fraction, @Nullable String message) {
		JobRunState.checkProgress(fraction, message);
	}

	/**
	 * Iterate over a cursor that Redq keeps in Redis, so that a job resumes where it
	 * stopped instead of starting over: {@code step} is called with each cursor and
	 * returns the next one, or {@code null} at the end. The cursor after the latest step
	 * is written at most once per {@code redq.progress.interval}, when the attempt fails,
	 * and when the container stops; the next attempt starts at the cursor written last,
	 * and a job that finished its iteration skips it. A container that stops gracefully
	 * interrupts the iteration between two steps and gives the job back without using an
	 * attempt (see {@link JobStoppedException}); a worker killed outright repeats the
	 * steps of at most one interval. One iteration per job.
	 * @param <C> the cursor's type
	 * @param cursorType the cursor's type, which its JSON is read back as
	 * @param start the cursor of a job that has none kept yet
	 * @param step processes the items at a cursor and returns the next cursor, or
	 * {@code null} when there are no more; at most {@value #MAX_CURSOR_SIZE} bytes of
	 * JSON
	 * @throws Exception what a step threw
	 * @throws JobStoppedException when the container stops: let it through
	 */
	default <C> void iterate(Class<C> cursorType, C start, CursorStep<C> step) throws Exception {
		for (C cursor = start; cursor != null; cursor = step.next(cursor)) {
			// in memory
		}
	}

	/**
	 * Run a step of the job once: a job whose earlier attempt finished this step skips
	 * it. The step's end is written to Redis right after it returns; a worker killed in
	 * between runs it again, so make it idempotent. A container that stops gracefully
	 * gives the job back before the next step starts (see {@link JobStoppedException}).
	 * @param name the step's name, unique within the job, at most
	 * {@value #MAX_STEP_NAME_LENGTH} characters
	 * @param step the step
	 * @throws Exception what the step threw
	 * @throws JobStoppedException when the container stops: let it through
	 */
	default void step(String name, Step step) throws Exception {
		JobRunState.checkStepName(name);
		step.run();
	}

	/**
	 * One step of an {@link #iterate iteration}.
	 *
	 * @param <C> the cursor's type
	 */
	@FunctionalInterface
	interface CursorStep<C> {

		/**
		 * Process the items at a cursor.
		 * @param cursor where to go on from
		 * @return the next cursor, or {@code null} when there are no more items
		 * @throws Exception to fail the attempt, which resumes at this cursor
		 */
		@Nullable C next(C cursor) throws Exception;

	}

	/**
	 * A {@link #step named step} of a job.
	 */
	@FunctionalInterface
	interface Step {

		/**
		 * Run the step.
		 * @throws Exception to fail the attempt, which runs the step again
		 */
		void run() throws Exception;

	}

}
