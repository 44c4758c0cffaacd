package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.CompletedJob;
import io.redq.queue.core.JobProgress;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueSnapshot;
import io.redq.queue.inspect.BatchView;
import io.redq.queue.inspect.ChainView;
import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.ShardView;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the operations of the {@link JobQueueEndpoint} return, as JSON: each record is one
 * body or a part of one.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class JobQueueDescriptors {

	private JobQueueDescriptors() {
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

		static QueueDescriptor of(QueueSnapshot snapshot) {
			return new QueueDescriptor(snapshot.stats().ready(), snapshot.stats().delayed(),
					snapshot.stats().reserved(), snapshot.stats().dead(), snapshot.oldestReadyAge(), snapshot.paused(),
					snapshot.readyByPriority(), snapshot.readyGroups(), null);
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

		static ShardDescriptor of(ShardView shard) {
			QueueSnapshot snapshot = shard.snapshot();
			return new ShardDescriptor(shard.hashTag(), shard.slot(), shard.master(), snapshot.stats().ready(),
					snapshot.stats().delayed(), snapshot.stats().reserved(), snapshot.stats().dead(),
					snapshot.oldestReadyAge(), snapshot.paused(), snapshot.readyByPriority(), snapshot.readyGroups());
		}

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

		static DeadJobDescriptor of(JobView job, boolean withEnvelope) {
			return new DeadJobDescriptor(job.id(), job.job(), job.attempts(), (job.error() != null) ? job.error() : "",
					job.at(), withEnvelope ? job.envelope() : null, job.progress());
		}

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

		static JobDescriptor of(JobView job) {
			return new JobDescriptor(job.id(), job.job(), job.state(), job.attempts(), job.at(), job.error(),
					job.progress());
		}

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

		static BatchSummaryDescriptor of(BatchView batch) {
			BatchStatus status = batch.status();
			return new BatchSummaryDescriptor(status.id(), status.state(), status.deathPolicy(), status.total(),
					status.pending(), status.succeeded(), status.dead(), status.cancelled(), batch.createdAt());
		}

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

		static ChainSummaryDescriptor of(ChainView chain) {
			ChainStatus status = chain.status();
			long succeeded = status.steps().stream().filter((step) -> step.state() == StepState.SUCCEEDED).count();
			return new ChainSummaryDescriptor(status.id(), status.state(), status.reason(), status.steps().size(),
					succeeded, chain.createdAt());
		}

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
