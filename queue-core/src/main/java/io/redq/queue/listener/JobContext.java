package io.redq.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * What a running job knows about itself. Declare a parameter of this type on a
 * {@code @QueuedJob} method to get it.
 *
 * <p>
 * The id is stable across attempts: use it as an idempotency key, since a job runs again
 * if its worker dies or stalls past its lease.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobContext {

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

}
