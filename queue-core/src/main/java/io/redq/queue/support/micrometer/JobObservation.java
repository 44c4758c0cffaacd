package io.redq.queue.support.micrometer;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of Redq: dispatching a job and processing one attempt of it. Their
 * keys follow the OpenTelemetry messaging semantic conventions; a job's id and attempt
 * are high-cardinality keys only, so that they reach spans but never meter tags.
 *
 * @author Redq team
 * @since 0.1.0
 * @see DefaultJobDispatchObservationConvention
 * @see DefaultJobProcessObservationConvention
 */
public enum JobObservation implements ObservationDocumentation {

	/**
	 * Dispatching a job: from before its envelope is written until Redis has it. The
	 * envelope's headers carry the trace context to the worker.
	 */
	DISPATCH(DefaultJobDispatchObservationConvention.class, HighCardinalityKeys.MESSAGING_MESSAGE_ID),

	/**
	 * Processing one attempt of a job: the handler's run, in the trace of the dispatch.
	 */
	PROCESS(DefaultJobProcessObservationConvention.class, HighCardinalityKeys.values());

	private final Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention;

	private final HighCardinalityKeys[] highCardinalityKeyNames;

	JobObservation(Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention,
			HighCardinalityKeys... highCardinalityKeyNames) {
		this.defaultConvention = defaultConvention;
		this.highCardinalityKeyNames = highCardinalityKeyNames;
	}

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return this.defaultConvention;
	}

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return LowCardinalityKeys.values();
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return this.highCardinalityKeyNames.clone();
	}

	/**
	 * Keys with a bounded set of values: they tag meters as well as spans.
	 */
	public enum LowCardinalityKeys implements KeyName {

		/** The messaging system: always {@code redq}. */
		MESSAGING_SYSTEM("messaging.system"),

		/** The operation: {@code publish} or {@code process}. */
		MESSAGING_OPERATION("messaging.operation"),

		/** The queue. */
		MESSAGING_DESTINATION_NAME("messaging.destination.name"),

		/** The job name. */
		JOB_NAME("redq.job.name");

		private final String key;

		LowCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/**
	 * Keys whose values are unbounded: they go on spans only.
	 */
	public enum HighCardinalityKeys implements KeyName {

		/** The job id. */
		MESSAGING_MESSAGE_ID("messaging.message.id"),

		/** The attempt, from 1 (processing only). */
		JOB_ATTEMPT("redq.job.attempt");

		private final String key;

		HighCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}
