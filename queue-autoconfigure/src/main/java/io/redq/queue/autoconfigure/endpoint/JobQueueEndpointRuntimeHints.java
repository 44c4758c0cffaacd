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
				JobQueueDescriptors.QueuesDescriptor.class, JobQueueDescriptors.QueueDescriptor.class,
				JobQueueDescriptors.ShardDescriptor.class, JobQueueDescriptors.CompletedJobsDescriptor.class,
				JobQueueDescriptors.DeadJobsDescriptor.class, JobQueueDescriptors.DeadJobDescriptor.class,
				JobQueueDescriptors.ChangeDescriptor.class, JobQueueDescriptors.ResultDescriptor.class,
				JobQueueDescriptors.JobDescriptor.class, JobQueueDescriptors.BatchesDescriptor.class,
				JobQueueDescriptors.BatchSummaryDescriptor.class, JobQueueDescriptors.BatchDescriptor.class,
				JobQueueDescriptors.ChainsDescriptor.class, JobQueueDescriptors.ChainSummaryDescriptor.class,
				JobQueueDescriptors.ChainDescriptor.class);
	}

}
