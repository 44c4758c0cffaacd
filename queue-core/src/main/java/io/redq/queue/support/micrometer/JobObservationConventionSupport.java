package io.redq.queue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.redq.queue.support.micrometer.JobObservation.HighCardinalityKeys;
import io.redq.queue.support.micrometer.JobObservation.LowCardinalityKeys;

/**
 * What the default conventions of dispatching and processing share: the keys of the job,
 * and the name in traces that the OpenTelemetry messaging conventions give a span,
 * {@code <operation> <queue>}.
 *
 * @param <C> the type of context
 * @author Redq team
 * @since 0.1.0
 */
abstract class JobObservationConventionSupport<C extends Observation.Context> implements ObservationConvention<C> {

	private final String name;

	private final String operation;

	/**
	 * Create a convention.
	 * @param name the observation's name
	 * @param operation {@code publish} or {@code process}
	 */
	JobObservationConventionSupport(String name, String operation) {
		this.name = name;
		this.operation = operation;
	}

	/**
	 * Return the job a context is about.
	 * @param context the context
	 * @return the job
	 */
	abstract ObservedJob jobOf(C context);

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(C context) {
		ObservedJob job = jobOf(context);
		return KeyValues.of(LowCardinalityKeys.MESSAGING_SYSTEM.withValue("redq"),
				LowCardinalityKeys.MESSAGING_OPERATION.withValue(this.operation),
				LowCardinalityKeys.MESSAGING_DESTINATION_NAME.withValue(job.queue()),
				LowCardinalityKeys.JOB_NAME.withValue(job.name()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(C context) {
		return KeyValues.of(HighCardinalityKeys.MESSAGING_MESSAGE_ID.withValue(jobOf(context).id()));
	}

	@Override
	public String getContextualName(C context) {
		return this.operation + " " + jobOf(context).queue();
	}

}
