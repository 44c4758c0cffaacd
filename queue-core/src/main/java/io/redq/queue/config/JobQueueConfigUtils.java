package io.redq.queue.config;

/**
 * Names of the infrastructure beans Redq registers, and the lifecycle phase its
 * components share.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class JobQueueConfigUtils {

	/** The bean name of the {@code QueuedJobAnnotationBeanPostProcessor}. */
	public static final String QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME = "io.redq.queue.config.internalQueuedJobAnnotationProcessor";

	/** The bean name of the {@link JobListenerRegistry}. */
	public static final String JOB_LISTENER_REGISTRY_BEAN_NAME = "io.redq.queue.config.internalJobListenerRegistry";

	/** The bean name of the {@link JobCatalog}. */
	public static final String JOB_CATALOG_BEAN_NAME = "io.redq.queue.config.internalJobCatalog";

	/**
	 * The bean name of the {@link JobListenerContainerFactory} the annotation processor
	 * uses.
	 */
	public static final String JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME = "jobListenerContainerFactory";

	/**
	 * The lifecycle phase of the listener containers, their registry and the dispatcher:
	 * late, so that they start last and stop first, before the Redis connection factory
	 * (phase 0). One phase for all, so that none of them ends the phase of another before
	 * its jobs are finished or sent.
	 */
	public static final int LIFECYCLE_PHASE = Integer.MAX_VALUE - 100;

	private JobQueueConfigUtils() {
	}

}
