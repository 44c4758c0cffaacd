package io.redq.queue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.redq.queue.support.micrometer.JobObservation.HighCardinalityKeys;

/**
 * Default {@link JobProcessObservationConvention}: the observation {@code redq.listener},
 * named {@code process <queue>} in traces, with the keys of
 * {@link JobObservation#PROCESS}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DefaultJobProcessObservationConvention extends JobObservationConventionSupport<JobProcessReceiverContext>
		implements JobProcessObservationConvention {

	/** A shared instance. */
	public static final DefaultJobProcessObservationConvention INSTANCE = new DefaultJobProcessObservationConvention();

	/**
	 * Create the default convention.
	 */
	public DefaultJobProcessObservationConvention() {
		super("redq.listener", "process");
	}

	@Override
	ObservedJob jobOf(JobProcessReceiverContext context) {
		return context.getJob();
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobProcessReceiverContext context) {
		return super.getHighCardinalityKeyValues(context)
			.and(HighCardinalityKeys.JOB_ATTEMPT.withValue(String.valueOf(context.getAttempt())));
	}

}
