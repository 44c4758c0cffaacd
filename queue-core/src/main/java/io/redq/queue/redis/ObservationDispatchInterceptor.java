package io.redq.queue.redis;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.support.micrometer.DefaultJobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchSenderContext;
import io.redq.queue.support.micrometer.JobObservation;
import io.redq.queue.support.micrometer.ObservedJob;
import org.jspecify.annotations.Nullable;

/**
 * Observes each dispatched job as {@link JobObservation#DISPATCH}, from before its
 * envelope is written until Redis has it: a tracer adds the trace context to the job's
 * headers as the observation starts. The first interceptor of a dispatcher that observes
 * dispatches.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ObservationDispatchInterceptor implements DispatchInterceptor {

	private static final String OBSERVATION = ObservationDispatchInterceptor.class.getName() + ".observation";

	private final ObservationRegistry registry;

	private final @Nullable JobDispatchObservationConvention convention;

	ObservationDispatchInterceptor(ObservationRegistry registry,
			@Nullable JobDispatchObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public void beforeDispatch(OutgoingJob job) {
		// one observation per job, as each job has its own name and queue
		job.setAttribute(OBSERVATION,
				JobObservation.DISPATCH.start(this.convention, DefaultJobDispatchObservationConvention.INSTANCE,
						() -> new JobDispatchSenderContext(job.getHeaders(),
								new ObservedJob(job.getQueue(), job.getJobName(), job.getId())),
						this.registry));
	}

	@Override
	public void afterDispatch(OutgoingJob job) {
		((Observation) job.getAttribute(OBSERVATION)).stop();
	}

	@Override
	public void afterFailure(OutgoingJob job, Throwable exception) {
		((Observation) job.getAttribute(OBSERVATION)).error(exception).stop();
	}

}
