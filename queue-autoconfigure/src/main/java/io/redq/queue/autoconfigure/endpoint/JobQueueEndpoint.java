package io.redq.queue.autoconfigure.endpoint;

import java.util.function.Supplier;

import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ChangeDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueueDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueuesDescriptor;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.QueueStore;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code redq} actuator endpoint: the queues of this application with their counts,
 * oldest ready age and pause state, and their dead jobs. Read-only by default; with
 * {@code management.endpoint.redq.access=unrestricted} it also pauses and resumes queues,
 * retries and deletes dead jobs, triggers and cancels pending jobs, and purges queues.
 *
 * <p>
 * Over HTTP, below {@code /actuator/redq}:
 * <ul>
 * <li>{@code GET /}: every queue; {@code GET /{queue}}: one queue</li>
 * <li>{@code POST /{queue}} with {@code paused} ({@code true} or {@code false}): pause or
 * resume the queue in every instance</li>
 * <li>{@code DELETE /{queue}?confirm={queue}}: purge the queue</li>
 * <li>{@code GET /{queue}/dead?offset=&count=}: a page of dead jobs, newest first</li>
 * <li>{@code POST /{queue}/dead} with {@code ids}: retry those dead jobs, or with
 * {@code confirm={queue}} every one</li>
 * <li>{@code DELETE /{queue}/dead?ids=} or {@code ?confirm={queue}}: delete those dead
 * jobs, or every one</li>
 * <li>{@code GET}, {@code DELETE /{queue}/dead/{id}}: show, delete one dead job</li>
 * <li>{@code GET /{queue}/completed/{id}}: a completed job's stored result, its first
 * {@value JobQueueInspector#MAX_RESULT_READ} bytes</li>
 * <li>{@code GET /{queue}/jobs/{id}}: a job where it stands, with its progress</li>
 * <li>{@code GET /batches?offset=&count=}: a page of the batches, newest first</li>
 * <li>{@code GET /batches/{id}?offset=&count=}: a batch, with a page of its dead
 * members</li>
 * <li>{@code GET /chains?offset=&count=}: a page of the chains, newest first</li>
 * <li>{@code GET /chains/{id}}: a chain, with its steps</li>
 * <li>{@code POST /{queue}/jobs} with {@code ids}: trigger those delayed jobs or timers
 * now</li>
 * <li>{@code DELETE /{queue}/jobs/{id}}: cancel a pending job or timer</li>
 * </ul>
 * Every {@code POST} takes a JSON body, or a JSON content type: Spring Boot refuses a
 * form, so that no form of another site can change anything, whatever the security setup;
 * a {@code DELETE} from another site needs a CORS preflight. The queues served are those
 * of the {@link JobQueueInspector}: the queues of the jobs this application knows
 * (handles or dispatches) and those found in Redis under the key prefix. Reading another
 * queue finds nothing, and changing one is a bad request. While Redis is unavailable,
 * every operation fails with {@link RedisUnavailableException}, a 503 over HTTP: each
 * read within the inspector's read timeout as a whole. The list of queues reads each
 * queue's counts at most once a second however many callers ask. {@code batches} and
 * {@code chains} name the batches and the chains, not queues: a queue by either name is
 * read in the list of every queue.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Endpoint(id = "redq", defaultAccess = Access.READ_ONLY)
public class JobQueueEndpoint {

	/** The number of dead jobs in a page unless {@code count} says otherwise. */
	public static final int DEFAULT_PAGE_SIZE = 20;

	/** The most dead jobs a page holds. */
	public static final int MAX_PAGE_SIZE = JobQueueInspector.MAX_PAGE_SIZE;

	/** The most ids one retry, delete or trigger takes: one script call's batch. */
	public static final int MAX_IDS = QueueStore.MAX_BATCH_SIZE;

	static final String DEAD = "dead";

	static final String COMPLETED = "completed";

	static final String JOBS = "jobs";

	private final JobQueueInspector inspector;

	private final JobQueueEndpointReads reads;

	private final JobQueueEndpointActions actions;

	/**
	 * Create an instance.
	 * @param inspector the inspector whose queues the endpoint serves
	 */
	public JobQueueEndpoint(JobQueueInspector inspector) {
		this.inspector = inspector;
		this.reads = new JobQueueEndpointReads(inspector);
		this.actions = new JobQueueEndpointActions(inspector);
	}

	/**
	 * Describe every queue of this application, and list the live application instances.
	 * @return the queues, by name, and the instances
	 */
	@ReadOperation
	public QueuesDescriptor queues() {
		return read(this.reads::queues);
	}

	/**
	 * Describe one queue, or page through the batches ({@code batches}) or the chains
	 * ({@code chains}), newest first.
	 * @param queue the queue, {@code batches} or {@code chains}
	 * @param offset how many of the newest batches or chains to skip (default 0)
	 * @param count the most batches or chains to return (default
	 * {@value #DEFAULT_PAGE_SIZE}, at most {@value #MAX_PAGE_SIZE})
	 * @param shards whether to describe each shard of the queue too, read afresh (default
	 * {@code false})
	 * @return the queue or the page, or {@code null} when this application does not know
	 * the queue
	 */
	@ReadOperation
	public @Nullable OperationResponseBody queue(@Selector String queue, @Nullable Integer offset,
			@Nullable Integer count, @Nullable Boolean shards) {
		return read(() -> this.reads.queue(queue, offset, count, shards));
	}

	/**
	 * Pause or resume a queue in every application instance. A paused queue hands out no
	 * jobs; running jobs finish.
	 * @param queue the queue
	 * @param paused whether to pause ({@code true}) or resume ({@code false}) it
	 * @return the queue afterwards
	 */
	@WriteOperation
	public QueueDescriptor pause(@Selector String queue, boolean paused) {
		return withRedis(() -> this.actions.pause(queue, paused));
	}

	/**
	 * Delete every job of a queue: ready, delayed, running and dead. The pause state is
	 * kept.
	 * @param queue the queue
	 * @param confirm the queue name again, against purging the wrong queue by mistake
	 * @return the queue afterwards
	 */
	@DeleteOperation
	public QueueDescriptor purge(@Selector String queue, @Nullable String confirm) {
		return withRedis(() -> this.actions.purge(queue, confirm));
	}

	/**
	 * Page through a queue's dead jobs, newest first, or list the latest completed jobs
	 * (kept with {@code redq.completed.max-size}); or describe a batch
	 * ({@code batches/{id}}) with a page of its dead members, or a chain
	 * ({@code chains/{id}}) with its steps.
	 * @param queue the queue, {@code batches} or {@code chains}
	 * @param section {@code dead} or {@code completed}, or the batch or chain id
	 * @param offset how many of the newest dead jobs, or of the batch's dead members, to
	 * skip (default 0)
	 * @param count the most to return (default {@value #DEFAULT_PAGE_SIZE}, at most
	 * {@value #MAX_PAGE_SIZE})
	 * @return the page, the batch or the chain, or {@code null} when this application
	 * does not know the queue, or Redis keeps no batch or chain by that id
	 */
	@ReadOperation
	public @Nullable OperationResponseBody jobs(@Selector String queue, @Selector String section,
			@Nullable Integer offset, @Nullable Integer count) {
		return read(() -> this.reads.jobs(queue, section, offset, count));
	}

	/**
	 * Retry dead jobs with fresh attempts ({@code dead}): they become ready at once; or
	 * run delayed jobs or timers now ({@code jobs}). Its parameters come in a JSON body
	 * (or the query string of a request with a JSON content type), so that a form of
	 * another site, which cannot send JSON, cannot make the change: Spring Boot refuses
	 * any other content type.
	 * @param queue the queue
	 * @param section {@code dead} or {@code jobs}
	 * @param ids the ids of the jobs, at most {@value #MAX_IDS}; for {@code dead}, none
	 * to retry every dead job, which needs {@code confirm}
	 * @param confirm the queue name again, when retrying every dead job
	 * @return how many jobs were retried or triggered: a job that was not dead, or not
	 * delayed, is not counted
	 */
	@WriteOperation
	public ChangeDescriptor retryOrTrigger(@Selector String queue, @Selector String section, String @Nullable [] ids,
			@Nullable String confirm) {
		return withRedis(() -> this.actions.retryOrTrigger(queue, section, ids, confirm));
	}

	/**
	 * Delete dead jobs.
	 * @param queue the queue
	 * @param dead the literal {@code dead}
	 * @param ids the ids of the jobs to delete; none to delete every dead job, which
	 * needs {@code confirm}
	 * @param confirm the queue name again, when deleting every dead job
	 * @return how many jobs were deleted
	 */
	@DeleteOperation
	public ChangeDescriptor deleteDeadJobs(@Selector String queue, @Selector String dead, String @Nullable [] ids,
			@Nullable String confirm) {
		return withRedis(() -> this.actions.deleteDeadJobs(queue, dead, ids, confirm));
	}

	/**
	 * Show one dead job, with its envelope; or a completed job's stored result, its first
	 * {@value JobQueueInspector#MAX_RESULT_READ} bytes; or any job where it stands, with
	 * its progress.
	 * @param queue the queue
	 * @param section {@code dead}, {@code completed} or {@code jobs}
	 * @param id the job id
	 * @return the dead job, the result or the job, or {@code null} when the queue is
	 * unknown, no job with that id is dead (or kept at all), or no result of it is kept
	 * (it has not completed, returned nothing, or its result expired)
	 */
	@ReadOperation
	public @Nullable OperationResponseBody job(@Selector String queue, @Selector String section, @Selector String id) {
		return read(() -> this.reads.job(queue, section, id));
	}

	/**
	 * Delete one dead job ({@code dead}), or cancel a pending job or timer
	 * ({@code jobs}).
	 * @param queue the queue
	 * @param section {@code dead} or {@code jobs}
	 * @param id the job id
	 * @return how many jobs were deleted or cancelled: 0 when the job was not dead or not
	 * pending
	 */
	@DeleteOperation
	public ChangeDescriptor deleteOrCancel(@Selector String queue, @Selector String section, @Selector String id) {
		return withRedis(() -> this.actions.deleteOrCancel(queue, section, id));
	}

	// a read answers within the inspector's read timeout as a whole, so that it fails
	// fast while Redis is down
	private <T> T read(Supplier<T> operation) {
		return withRedis(() -> this.inspector.read(operation));
	}

	// Redis unreachable or too slow is not the caller's fault: a 503 that says so
	private static <T> T withRedis(Supplier<T> operation) {
		try {
			return operation.get();
		}
		catch (RuntimeException ex) {
			if (JobQueueInspector.isRedisUnavailable(ex)) {
				throw new RedisUnavailableException(ex);
			}
			throw ex;
		}
	}

}
