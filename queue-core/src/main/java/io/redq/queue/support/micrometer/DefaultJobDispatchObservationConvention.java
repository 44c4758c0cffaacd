package io.redq.queue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.redq.queue.support.micrometer.JobObservation.HighCardinalityKeys;
import io.redq.queue.support.micrometer.JobObservation.LowCardinalityKeys;

/**
 * Default {@link JobDispatchObservationConvention}: the observation
 * {@code redq.dispatcher}, named {@code publish <queue>} in traces, with the keys of
 * {@link JobObservation#DISPATCH}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DefaultJobDispatchObservationConvention implements JobDispatchObservationConvention {

	/** A shared instance. */
	public static final DefaultJobDispatchObservationConvention INSTANCE = new DefaultJobDispatchObservationConvention();

	@Override
	public KeyValues getLowCardinalityKeyValues(JobDispatchSenderContext context) {
		return LowCardinalityKeys.of("publish", context.getQueue(), context.getJobName());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobDispatchSenderContext context) {
		return KeyValues.of(HighCardinalityKeys.MESSAGING_MESSAGE_ID.withValue(context.getJobId()));
	}

	@Override
	public String getContextualName(JobDispatchSenderContext context) {
		return "publish " + context.getQueue();
	}

}
