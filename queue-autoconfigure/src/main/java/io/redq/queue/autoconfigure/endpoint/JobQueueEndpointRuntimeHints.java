package io.redq.queue.autoconfigure.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The {@link RuntimeHints} that the {@link JobQueueEndpoint} needs in a native image: the
 * descriptors its operations return, and what they hold, bound to JSON. Spring Boot finds
 * an operation's declared return type by itself, not the descriptors behind the
 * {@code OperationResponseBody} that the pages of jobs, batches and chains, a batch, a
 * chain and a result return, so all are listed here.
 *
 * @author Redq team
 * @since 0.1.0
 */
class JobQueueEndpointRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				JobQueueEndpoint.QueuesDescriptor.class, JobQueueEndpoint.QueueDescriptor.class,
				JobQueueEndpoint.ShardDescriptor.class, JobQueueEndpoint.CompletedJobsDescriptor.class,
				JobQueueEndpoint.DeadJobsDescriptor.class, JobQueueEndpoint.DeadJobDescriptor.class,
				JobQueueEndpoint.ChangeDescriptor.class, JobQueueEndpoint.ResultDescriptor.class,
				JobQueueEndpoint.JobDescriptor.class, JobQueueEndpoint.BatchesDescriptor.class,
				JobQueueEndpoint.BatchSummaryDescriptor.class, JobQueueEndpoint.BatchDescriptor.class,
				JobQueueEndpoint.ChainsDescriptor.class, JobQueueEndpoint.ChainSummaryDescriptor.class,
				JobQueueEndpoint.ChainDescriptor.class);
	}

}
