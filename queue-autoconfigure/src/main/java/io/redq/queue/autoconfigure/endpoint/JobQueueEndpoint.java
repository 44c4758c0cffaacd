package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.CompletedJob;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.BatchPage;
import io.redq.queue.inspect.BatchView;
import io.redq.queue.inspect.ChainPage;
import io.redq.queue.inspect.ChainView;
import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.ResultView;
import io.redq.queue.inspect.ShardView;
import io.redq.queue.redis.QueueStore;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
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

	private static final String DEAD = "dead";

	private static final String COMPLETED = "completed";

	private static final String JOBS = "jobs";

	private static final String BATCHES = "batches";

	private static final String CHAINS = "chains";

	private final JobQueueInspector inspector;

	private final JobQueueOperations operations;

	/**
	 * Create an instance.
	 * @param inspector the inspector whose queues the endpoint serves
	 */
	public JobQueueEndpoint(JobQueueInspector inspector) {
		this.inspector = inspector;
		this.operations = inspector.getOperations();
	}

	/**
	 * Describe every queue of this application, and list the live application instances.
	 * @return the queues, by name, and the instances
	 */
	@ReadOperation
	public QueuesDescriptor queues() {
		return read(() -> {
			Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
			for (String queue : this.inspector.queueNames()) {
				queues.put(queue, describe(this.inspector.recentSnapshot(queue)));
			}
			return new QueuesDescriptor(queues, this.inspector.instances());
		});
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
		return read(() -> {
			if (BATCHES.equals(queue)) {
				int from = offset(offset);
				BatchPage page = this.inspector.batches(from, count(count));
				return new BatchesDescriptor(page.total(), page.offset(),
						page.batches().stream().map(JobQueueEndpoint::describe).toList());
			}
			if (CHAINS.equals(queue)) {
				ChainPage page = this.inspector.chains(offset(offset), count(count));
				return new ChainsDescriptor(page.total(), page.offset(),
						page.chains().stream().map(JobQueueEndpoint::describe).toList());
			}
			if (!this.inspector.exists(queue)) {
				return null;
			}
			if (Boolean.TRUE.equals(shards)) {
				List<ShardDescriptor> described = this.inspector.shards(queue)
					.stream()
					.map(JobQueueEndpoint::describe)
					.toList();
				return describe(this.inspector.snapshot(queue)).withShards(described);
			}
			return describe(this.inspector.recentSnapshot(queue));
		});
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
		return withRedis(() -> {
			requireKnown(queue);
			if (paused) {
				this.operations.pause(queue);
			}
			else {
				this.operations.resume(queue);
			}
			return describe(queue);
		});
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
		return withRedis(() -> {
			requireKnown(queue);
			requireConfirmation(queue, confirm, "purge");
			this.operations.purge(queue);
			return describe(queue);
		});
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
		return read(() -> {
			if (BATCHES.equals(queue)) {
				return batch(section, offset(offset), count(count));
			}
			if (CHAINS.equals(queue)) {
				return chain(section);
			}
			if (!(DEAD.equals(section) || COMPLETED.equals(section)) || !this.inspector.exists(queue)) {
				return null;
			}
			int from = offset(offset);
			int size = count(count);
			if (COMPLETED.equals(section)) {
				return new CompletedJobsDescriptor(this.operations.completedJobs(queue, size));
			}
			List<DeadJobDescriptor> page = new ArrayList<>();
			for (JobView job : this.inspector.jobs(queue, JobStatus.State.DEAD, from, size).jobs()) {
				page.add(describe(job, false));
			}
			return new DeadJobsDescriptor(this.operations.stats(queue).dead(), from, page);
		});
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
		return withRedis(() -> {
			requireKnown(queue);
			requireSection(section, DEAD, JOBS);
			if (DEAD.equals(section)) {
				requireIds(queue, ids, confirm, "retry every dead job of");
				return new ChangeDescriptor("retry", this.operations.retryDead(queue, list(ids)));
			}
			if (ids == null || ids.length == 0) {
				throw new InvalidEndpointRequestException("No ids", "Name the jobs to trigger in ids");
			}
			requireBatch(ids);
			long triggered = 0;
			for (String id : ids) {
				triggered += this.operations.trigger(queue, id) ? 1 : 0;
			}
			return new ChangeDescriptor("trigger", triggered);
		});
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
		return withRedis(() -> {
			requireKnown(queue);
			requireSection(dead, DEAD);
			requireIds(queue, ids, confirm, "delete every dead job of");
			return new ChangeDescriptor("delete", this.operations.deleteDead(queue, list(ids)));
		});
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
		return read(() -> {
			if (!(DEAD.equals(section) || COMPLETED.equals(section) || JOBS.equals(section))
					|| !this.inspector.exists(queue)) {
				return null;
			}
			if (COMPLETED.equals(section)) {
				ResultView result = this.inspector.result(queue, requireId(id));
				return (result != null) ? new ResultDescriptor(id, result.json(), result.size(), result.truncated())
						: null;
			}
			JobView job = this.inspector.job(queue, requireId(id));
			if (job == null) {
				return null;
			}
			if (JOBS.equals(section)) {
				return new JobDescriptor(job.id(), job.job(), job.state(), job.attempts(), job.at(), job.error(),
						job.progress());
			}
			return (job.state() == JobStatus.State.DEAD) ? describe(job, true) : null;
		});
	}

	private @Nullable BatchDescriptor batch(String batchId, int offset, int count) {
		BatchView batch = this.inspector.batch(requireId(batchId));
		if (batch == null) {
			return null;
		}
		return new BatchDescriptor(describe(batch), offset, this.inspector.deadBatchMembers(batchId, offset, count));
	}

	private @Nullable ChainDescriptor chain(String chainId) {
		ChainView chain = this.inspector.chain(requireId(chainId));
		return (chain != null) ? new ChainDescriptor(describe(chain), chain.status().steps()) : null;
	}

	private static int offset(@Nullable Integer offset) {
		int from = (offset != null) ? offset : 0;
		if (from < 0) {
			throw invalidPage("offset " + from);
		}
		return from;
	}

	private static int count(@Nullable Integer count) {
		int size = (count != null) ? count : DEFAULT_PAGE_SIZE;
		if (size < 1 || size > MAX_PAGE_SIZE) {
			throw invalidPage("count " + size);
		}
		return size;
	}

	private static InvalidEndpointRequestException invalidPage(String what) {
		return new InvalidEndpointRequestException("Invalid page: " + what,
				"offset must be 0 or more and count between 1 and " + MAX_PAGE_SIZE);
	}

	// ids name keys: a bad one is the caller's mistake
	private static String requireId(String id) {
		try {
			return QueueNames.validateId(id);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
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
		if (isDead(queue, section)) {
			return deleteDeadJobs(queue, section, new String[] { id }, null);
		}
		return withRedis(() -> new ChangeDescriptor("cancel", this.operations.cancel(queue, id) ? 1 : 0));
	}

	private boolean isDead(String queue, String section) {
		return withRedis(() -> {
			requireKnown(queue);
			requireSection(section, DEAD, JOBS);
			return DEAD.equals(section);
		});
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

	private void requireKnown(String queue) {
		if (!this.inspector.exists(queue)) {
			throw new InvalidEndpointRequestException("Unknown queue '" + queue + "'",
					"Neither a job of this application nor Redis uses queue '" + queue + "'; the queues are "
							+ this.inspector.queueNames());
		}
	}

	private static void requireSection(String section, String... allowed) {
		if (!Arrays.asList(allowed).contains(section)) {
			throw new InvalidEndpointRequestException("Unknown section '" + section + "'",
					"Expected " + String.join(" or ", allowed) + " after the queue name, not '" + section + "'");
		}
	}

	private static void requireIds(String queue, String @Nullable [] ids, @Nullable String confirm, String action) {
		if (ids == null || ids.length == 0) {
			requireConfirmation(queue, confirm, action);
		}
		else {
			requireBatch(ids);
		}
	}

	// bounded: the ids go to Redis in one script call
	private static void requireBatch(String[] ids) {
		if (ids.length > MAX_IDS) {
			throw new InvalidEndpointRequestException("Too many ids: " + ids.length, ids.length + " ids given, at most "
					+ MAX_IDS + " are taken at once: send the others in further requests");
		}
	}

	private static void requireConfirmation(String queue, @Nullable String confirm, String action) {
		if (!queue.equals(confirm)) {
			throw new InvalidEndpointRequestException("Unconfirmed request to " + action + " queue '" + queue + "'",
					"To " + action + " queue '" + queue + "', confirm with the parameter confirm=" + queue);
		}
	}

	private QueueDescriptor describe(String queue) {
		return describe(this.inspector.snapshot(queue));
	}

	private static QueueDescriptor describe(QueueSnapshot snapshot) {
		return new QueueDescriptor(snapshot.stats().ready(), snapshot.stats().delayed(), snapshot.stats().reserved(),
				snapshot.stats().dead(), snapshot.oldestReadyAge(), snapshot.paused(), snapshot.readyByPriority(),
				snapshot.readyGroups(), null);
	}

	private static ShardDescriptor describe(ShardView shard) {
		QueueSnapshot snapshot = shard.snapshot();
		return new ShardDescriptor(shard.hashTag(), shard.slot(), shard.master(), snapshot.stats().ready(),
				snapshot.stats().delayed(), snapshot.stats().reserved(), snapshot.stats().dead(),
				snapshot.oldestReadyAge(), snapshot.paused(), snapshot.readyByPriority(), snapshot.readyGroups());
	}

	private static DeadJobDescriptor describe(JobView job, boolean withEnvelope) {
		return new DeadJobDescriptor(job.id(), job.job(), job.attempts(), (job.error() != null) ? job.error() : "",
				job.at(), withEnvelope ? job.envelope() : null, job.progress());
	}

	private static BatchSummaryDescriptor describe(BatchView batch) {
		BatchStatus status = batch.status();
		return new BatchSummaryDescriptor(status.id(), status.state(), status.deathPolicy(), status.total(),
				status.pending(), status.succeeded(), status.dead(), status.cancelled(), batch.createdAt());
	}

	private static ChainSummaryDescriptor describe(ChainView chain) {
		ChainStatus status = chain.status();
		long succeeded = status.steps().stream().filter((step) -> step.state() == StepState.SUCCEEDED).count();
		return new ChainSummaryDescriptor(status.id(), status.state(), status.reason(), status.steps().size(),
				succeeded, chain.createdAt());
	}

	private static List<String> list(String @Nullable [] ids) {
		return (ids != null) ? List.of(ids) : List.of();
	}

	/**
	 * Every queue of the application, and the live application instances.
	 *
	 * @param queues the queues, by name
	 * @param instances the live instances with the queues each consumes, latest heartbeat
	 * first
	 */
	public record QueuesDescriptor(Map<String, QueueDescriptor> queues,
			List<InstanceView> instances) implements OperationResponseBody {
	}

	/**
	 * A queue's counts, oldest ready age and pause state.
	 *
	 * @param ready jobs waiting to run
	 * @param delayed jobs waiting for their due time, including retries in backoff
	 * @param reserved jobs held by a worker
	 * @param dead dead jobs
	 * @param oldestReadyAge how long the oldest ready job has waited; zero when none is
	 * ready
	 * @param paused whether the queue is paused
	 * @param readyByPriority the ready jobs per priority level, highest first, levels
	 * without any left out
	 * @param readyGroups how many groups have ready jobs
	 * @param shards each shard, where it lives and its counts, the first shard first,
	 * when asked for
	 */
	public record QueueDescriptor(long ready, long delayed, long reserved, long dead, Duration oldestReadyAge,
			boolean paused, Map<Integer, Long> readyByPriority, long readyGroups,
			@Nullable List<ShardDescriptor> shards) implements OperationResponseBody {

		QueueDescriptor withShards(List<ShardDescriptor> shards) {
			return new QueueDescriptor(this.ready, this.delayed, this.reserved, this.dead, this.oldestReadyAge,
					this.paused, this.readyByPriority, this.readyGroups, shards);
		}

	}

	/**
	 * One shard of a queue, as the dashboard shows it: where it lives, and its counts,
	 * oldest ready age and pause state.
	 *
	 * @param hashTag the hash tag its keys share, e.g. <code>{orders#2}</code>; the first
	 * shard's is the queue's own, <code>{orders}</code>
	 * @param slot its Redis Cluster slot, or {@code null} without a cluster
	 * @param master the address ({@code host:port}) of the master that serves the slot,
	 * or {@code null} without a cluster or while no master serves it
	 * @param ready jobs waiting to run
	 * @param delayed jobs waiting for their due time, including retries in backoff
	 * @param reserved jobs held by a worker
	 * @param dead dead jobs
	 * @param oldestReadyAge how long the oldest ready job has waited; zero when none is
	 * ready
	 * @param paused whether the shard is paused
	 * @param readyByPriority the ready jobs per priority level, highest first, levels
	 * without any left out
	 * @param readyGroups how many groups have ready jobs
	 */
	public record ShardDescriptor(String hashTag, @Nullable Integer slot, @Nullable String master, long ready,
			long delayed, long reserved, long dead, Duration oldestReadyAge, boolean paused,
			Map<Integer, Long> readyByPriority, long readyGroups) {
	}

	/**
	 * The latest completed jobs.
	 *
	 * @param jobs their ids and completion times, newest first
	 */
	public record CompletedJobsDescriptor(List<CompletedJob> jobs) implements OperationResponseBody {
	}

	/**
	 * A page of dead jobs.
	 *
	 * @param total how many jobs of the queue are dead
	 * @param offset how many of the newest were skipped
	 * @param jobs the dead jobs, newest first
	 */
	public record DeadJobsDescriptor(long total, int offset,
			List<DeadJobDescriptor> jobs) implements OperationResponseBody {
	}

	/**
	 * A dead job.
	 *
	 * @param id the job id
	 * @param job the job name, or {@code null} when the envelope cannot be read
	 * @param attempts how many attempts it made
	 * @param error the last error
	 * @param diedAt when it died (Redis clock)
	 * @param envelope the stored envelope as JSON, or as text when it is not valid JSON;
	 * only when one job is shown
	 * @param progress how far it came, as its handler last reported it, and the cursor a
	 * retry resumes at; only when one job is shown, and {@code null} when it wrote none
	 */
	public record DeadJobDescriptor(String id, @Nullable String job, int attempts, String error, Instant diedAt,
			@Nullable Object envelope, @Nullable JobProgress progress) implements OperationResponseBody {
	}

	/**
	 * A job where it stands: waiting, running, dead or completed.
	 *
	 * @param id the job id
	 * @param job the job name, or {@code null} when the envelope cannot be read
	 * @param state where the job is
	 * @param attempts how many attempts it has used
	 * @param at its due time (delayed), lease expiry (running), time of death (dead) or
	 * completion (completed); when it became ready (ready); {@code null} when unknown
	 * @param error its last error, or {@code null} when it has not failed
	 * @param progress how far it came, as its handler last reported it, and the cursor
	 * the next attempt resumes at; {@code null} when it wrote none
	 */
	public record JobDescriptor(String id, @Nullable String job, JobStatus.State state, int attempts,
			@Nullable Instant at, @Nullable String error,
			@Nullable JobProgress progress) implements OperationResponseBody {
	}

	/**
	 * A completed job's stored result.
	 *
	 * @param id the job id
	 * @param json the result as its handler returned it, in JSON; its first
	 * {@value JobQueueInspector#MAX_RESULT_READ} bytes when {@code truncated}
	 * @param size the result's size in bytes
	 * @param truncated whether {@code json} holds only the result's first bytes
	 */
	public record ResultDescriptor(String id, String json, long size,
			boolean truncated) implements OperationResponseBody {
	}

	/**
	 * A page of the batches, newest first.
	 *
	 * @param total how many batches are listed, those that expired since the list was
	 * last read included
	 * @param offset how many of the newest were skipped
	 * @param batches the batches; fewer than asked for when some listed had expired
	 */
	public record BatchesDescriptor(long total, int offset,
			List<BatchSummaryDescriptor> batches) implements OperationResponseBody {
	}

	/**
	 * A batch's state and counts.
	 *
	 * @param id the batch id
	 * @param state where the batch is
	 * @param deathPolicy what the batch does when a member dies
	 * @param total how many members it has
	 * @param pending how many members have not finished
	 * @param succeeded how many members succeeded
	 * @param dead how many members died
	 * @param cancelled how many members were cancelled before they ran
	 * @param createdAt when it was created, or {@code null} when not listed
	 */
	public record BatchSummaryDescriptor(String id, BatchStatus.State state, BatchDeathPolicy deathPolicy, long total,
			long pending, long succeeded, long dead, long cancelled, @Nullable Instant createdAt) {
	}

	/**
	 * A batch with a page of its dead members.
	 *
	 * @param batch the batch's state and counts
	 * @param offset how many dead members were skipped, in the order their deaths were
	 * handed over
	 * @param deadMembers the page of dead members, each its queue and job id
	 */
	public record BatchDescriptor(BatchSummaryDescriptor batch, int offset,
			List<BatchMember> deadMembers) implements OperationResponseBody {
	}

	/**
	 * A page of the chains, newest first.
	 *
	 * @param total how many chains are listed, those that expired since the list was last
	 * read included
	 * @param offset how many of the newest were skipped
	 * @param chains the chains; fewer than asked for when some listed had expired
	 */
	public record ChainsDescriptor(long total, int offset,
			List<ChainSummaryDescriptor> chains) implements OperationResponseBody {
	}

	/**
	 * A chain's state.
	 *
	 * @param id the chain id
	 * @param state where the chain is
	 * @param reason why it ended without succeeding (which step died, or that it was
	 * cancelled), or {@code null}
	 * @param steps how many steps it has
	 * @param succeeded how many of its steps succeeded
	 * @param createdAt when it was created, or {@code null} when not listed
	 */
	public record ChainSummaryDescriptor(String id, ChainStatus.State state, @Nullable String reason, int steps,
			long succeeded, @Nullable Instant createdAt) {
	}

	/**
	 * A chain with its steps.
	 *
	 * @param chain the chain's state
	 * @param steps its steps in the order they run, each its queue, job id and state
	 */
	public record ChainDescriptor(ChainSummaryDescriptor chain,
			List<ChainStatus.Step> steps) implements OperationResponseBody {
	}

	/**
	 * What a write operation on jobs changed.
	 *
	 * @param operation {@code retry}, {@code delete}, {@code trigger} or {@code cancel}
	 * @param jobs how many jobs it changed
	 */
	public record ChangeDescriptor(String operation, long jobs) implements OperationResponseBody {
	}

}
