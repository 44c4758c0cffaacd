package io.redq.queue.autoconfigure.endpoint;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.BatchDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.BatchSummaryDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.BatchesDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ChainDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ChainSummaryDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ChainsDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.CompletedJobsDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.DeadJobDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.DeadJobsDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.JobDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueueDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueuesDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ResultDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ShardDescriptor;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.BatchPage;
import io.redq.queue.inspect.BatchView;
import io.redq.queue.inspect.ChainPage;
import io.redq.queue.inspect.ChainView;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.JobView;
import io.redq.queue.inspect.ResultView;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The read operations of the {@link JobQueueEndpoint}: queues, shards, dead and completed
 * jobs, batches and chains, with the checks of their pages and ids. A queue this
 * application does not know, or a job, batch or chain Redis does not keep, reads as
 * {@code null}.
 *
 * @author Redq team
 */
class JobQueueEndpointReads {

	private static final String BATCHES = "batches";

	private static final String CHAINS = "chains";

	private final JobQueueInspector inspector;

	JobQueueEndpointReads(JobQueueInspector inspector) {
		this.inspector = inspector;
	}

	QueuesDescriptor queues() {
		Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
		for (String queue : this.inspector.queueNames()) {
			queues.put(queue, QueueDescriptor.of(this.inspector.recentSnapshot(queue)));
		}
		return new QueuesDescriptor(queues, this.inspector.instances());
	}

	@Nullable OperationResponseBody queue(String queue, @Nullable Integer offset, @Nullable Integer count,
			@Nullable Boolean shards) {
		if (BATCHES.equals(queue)) {
			BatchPage page = this.inspector.batches(offset(offset), count(count));
			return new BatchesDescriptor(page.total(), page.offset(),
					page.batches().stream().map(BatchSummaryDescriptor::of).toList());
		}
		if (CHAINS.equals(queue)) {
			ChainPage page = this.inspector.chains(offset(offset), count(count));
			return new ChainsDescriptor(page.total(), page.offset(),
					page.chains().stream().map(ChainSummaryDescriptor::of).toList());
		}
		if (!this.inspector.exists(queue)) {
			return null;
		}
		if (Boolean.TRUE.equals(shards)) {
			List<ShardDescriptor> described = this.inspector.shards(queue).stream().map(ShardDescriptor::of).toList();
			return QueueDescriptor.of(this.inspector.snapshot(queue)).withShards(described);
		}
		return QueueDescriptor.of(this.inspector.recentSnapshot(queue));
	}

	@Nullable OperationResponseBody jobs(String queue, String section, @Nullable Integer offset, @Nullable Integer count) {
		if (BATCHES.equals(queue)) {
			return batch(section, offset(offset), count(count));
		}
		if (CHAINS.equals(queue)) {
			return chain(section);
		}
		if (!(JobQueueEndpoint.DEAD.equals(section) || JobQueueEndpoint.COMPLETED.equals(section))
				|| !this.inspector.exists(queue)) {
			return null;
		}
		int from = offset(offset);
		int size = count(count);
		if (JobQueueEndpoint.COMPLETED.equals(section)) {
			return new CompletedJobsDescriptor(this.inspector.getOperations().completedJobs(queue, size));
		}
		List<DeadJobDescriptor> page = this.inspector.jobs(queue, JobStatus.State.DEAD, from, size)
			.jobs()
			.stream()
			.map((job) -> DeadJobDescriptor.of(job, false))
			.toList();
		return new DeadJobsDescriptor(this.inspector.getOperations().stats(queue).dead(), from, page);
	}

	@Nullable OperationResponseBody job(String queue, String section, String id) {
		if (!(JobQueueEndpoint.DEAD.equals(section) || JobQueueEndpoint.COMPLETED.equals(section)
				|| JobQueueEndpoint.JOBS.equals(section)) || !this.inspector.exists(queue)) {
			return null;
		}
		if (JobQueueEndpoint.COMPLETED.equals(section)) {
			ResultView result = this.inspector.result(queue, requireId(id));
			return (result != null) ? new ResultDescriptor(id, result.json(), result.size(), result.truncated()) : null;
		}
		JobView job = this.inspector.job(queue, requireId(id));
		if (job == null) {
			return null;
		}
		if (JobQueueEndpoint.JOBS.equals(section)) {
			return JobDescriptor.of(job);
		}
		return (job.state() == JobStatus.State.DEAD) ? DeadJobDescriptor.of(job, true) : null;
	}

	private @Nullable BatchDescriptor batch(String batchId, int offset, int count) {
		BatchView batch = this.inspector.batch(requireId(batchId));
		if (batch == null) {
			return null;
		}
		return new BatchDescriptor(BatchSummaryDescriptor.of(batch), offset,
				this.inspector.deadBatchMembers(batchId, offset, count));
	}

	private @Nullable ChainDescriptor chain(String chainId) {
		ChainView chain = this.inspector.chain(requireId(chainId));
		return (chain != null) ? new ChainDescriptor(ChainSummaryDescriptor.of(chain), chain.status().steps()) : null;
	}

	private static int offset(@Nullable Integer offset) {
		int from = (offset != null) ? offset : 0;
		if (from < 0) {
			throw invalidPage("offset " + from);
		}
		return from;
	}

	private static int count(@Nullable Integer count) {
		int size = (count != null) ? count : JobQueueEndpoint.DEFAULT_PAGE_SIZE;
		if (size < 1 || size > JobQueueEndpoint.MAX_PAGE_SIZE) {
			throw invalidPage("count " + size);
		}
		return size;
	}

	private static InvalidEndpointRequestException invalidPage(String what) {
		return new InvalidEndpointRequestException("Invalid page: " + what,
				"offset must be 0 or more and count between 1 and " + JobQueueEndpoint.MAX_PAGE_SIZE);
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

}
