package io.redq.queue.support.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} of {@link JobObservation#DISPATCH}. Define a bean of this
 * type, e.g. a subclass of {@link DefaultJobDispatchObservationConvention}, to change its
 * name or keys; an implementation that is no such subclass also returns the observation's
 * name from {@link #getName()}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobDispatchObservationConvention extends ObservationConvention<JobDispatchSenderContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof JobDispatchSenderContext;
	}

}
