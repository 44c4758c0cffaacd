package io.redq.queue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.redq.queue.support.micrometer.JobObservation.HighCardinalityKeys;
import io.redq.queue.support.micrometer.JobObservation.LowCardinalityKeys;

/**
 * Default {@link JobProcessObservationConvention}: the observation {@code redq.listener},
 * named {@code process <queue>} in traces, with the keys of
 * {@link JobObservation#PROCESS}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DefaultJobProcessObservationConvention implements JobProcessObservationConvention {

	/** A shared instance. */
	public static final DefaultJobProcessObservationConvention INSTANCE = new DefaultJobProcessObservationConvention();

	@Override
	public KeyValues getLowCardinalityKeyValues(JobProcessReceiverContext context) {
		return LowCardinalityKeys.of("process", context.getQueue(), context.getJobName());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobProcessReceiverContext context) {
		return KeyValues.of(HighCardinalityKeys.MESSAGING_MESSAGE_ID.withValue(context.getJobId()),
				HighCardinalityKeys.JOB_ATTEMPT.withValue(String.valueOf(context.getAttempt())));
	}

	@Override
	public String getContextualName(JobProcessReceiverContext context) {
		return "process " + context.getQueue();
	}

}
