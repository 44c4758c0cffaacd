package io.redq.queue.listener;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobObservation;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobProcessReceiverContext;
import io.redq.queue.support.micrometer.ObservedJob;
import org.jspecify.annotations.Nullable;

/**
 * Observes each attempt as {@link JobObservation#PROCESS}, in the trace whose context the
 * job's headers carry: the first interceptor of a container that observes processing.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ObservationJobInterceptor implements JobInterceptor {

	private final ObservationRegistry registry;

	private final @Nullable JobProcessObservationConvention convention;

	ObservationJobInterceptor(ObservationRegistry registry, @Nullable JobProcessObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public void intercept(JobContext job, @Nullable Object payload, Invocation invocation) throws Exception {
		JobObservation.PROCESS
			.observation(this.convention, DefaultJobProcessObservationConvention.INSTANCE,
					() -> new JobProcessReceiverContext(job.getHeaders(),
							new ObservedJob(job.getQueue(), job.getJobName(), job.getId()), job.getAttempt()),
					this.registry)
			.observeChecked(invocation::proceed);
	}

}
