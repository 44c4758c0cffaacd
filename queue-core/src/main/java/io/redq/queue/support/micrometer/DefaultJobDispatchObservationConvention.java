package io.redq.queue.support.micrometer;

/**
 * Default {@link JobDispatchObservationConvention}: the observation
 * {@code redq.dispatcher}, named {@code publish <queue>} in traces, with the keys of
 * {@link JobObservation#DISPATCH}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DefaultJobDispatchObservationConvention extends JobObservationConventionSupport<JobDispatchSenderContext>
		implements JobDispatchObservationConvention {

	/** A shared instance. */
	public static final DefaultJobDispatchObservationConvention INSTANCE = new DefaultJobDispatchObservationConvention();

	/**
	 * Create the default convention.
	 */
	public DefaultJobDispatchObservationConvention() {
		super("redq.dispatcher", "publish");
	}

	@Override
	ObservedJob jobOf(JobDispatchSenderContext context) {
		return context.getJob();
	}

}
