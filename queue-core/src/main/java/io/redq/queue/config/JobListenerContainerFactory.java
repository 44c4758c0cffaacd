package io.redq.queue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.listener.DefaultJobErrorHandler;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobHandler;
import io.redq.queue.listener.JobInterceptor;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.annotation.AnnotationAwareOrderComparator;

/**
 * Creates the {@link JobListenerContainer} of each queue, with the shared settings or a
 * queue's own.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobListenerContainerFactory {

	private final ListenerOperations operations;

	private final JsonMapper jsonMapper;

	private final ContainerProperties containerProperties = new ContainerProperties();

	private final Map<String, ContainerProperties> queueProperties = new LinkedHashMap<>();

	private JobMetrics metrics = JobMetrics.NONE;

	private @Nullable JobErrorHandler errorHandler;

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobProcessObservationConvention observationConvention;

	private List<JobInterceptor> interceptors = List.of();

	/**
	 * Create an instance.
	 * @param operations the queue operations
	 * @param jsonMapper the mapper that reads job envelopes
	 */
	public JobListenerContainerFactory(ListenerOperations operations, JsonMapper jsonMapper) {
		this.operations = operations;
		this.jsonMapper = jsonMapper;
	}

	/**
	 * Return the settings every container gets unless its queue has its own; modify them
	 * to configure the factory.
	 * @return the shared settings
	 */
	public ContainerProperties getContainerProperties() {
		return this.containerProperties;
	}

	/**
	 * Give one queue's container its own settings.
	 * @param queue the queue
	 * @param properties the settings for its container
	 */
	public void setQueueProperties(String queue, ContainerProperties properties) {
		this.queueProperties.put(queue, properties);
	}

	/**
	 * Set the metrics the containers report each attempt's outcome to.
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
	}

	/**
	 * Set the error handler that decides, for the jobs that do not name their own,
	 * whether a failed or timed-out attempt is retried.
	 * <p>
	 * Default {@code null}: a {@link DefaultJobErrorHandler}, which retries with each
	 * job's backoff until it used its attempts.
	 * @param errorHandler the error handler, or {@code null} for the default
	 * @see JobListenerContainer#setErrorHandler
	 */
	public void setErrorHandler(@Nullable JobErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	/**
	 * Set whether the containers observe each handler call with the
	 * {@link ObservationRegistry}.
	 * <p>
	 * Default {@code false}.
	 * @param observationEnabled whether to observe processing
	 * @see JobListenerContainer#setObservationEnabled
	 */
	public void setObservationEnabled(boolean observationEnabled) {
		this.observationEnabled = observationEnabled;
	}

	/**
	 * Set the registry that observes processing when observation is enabled.
	 * <p>
	 * Default {@link ObservationRegistry#NOOP}.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Set the convention that names and tags the processing observations.
	 * <p>
	 * Default {@code null}: {@link DefaultJobProcessObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable JobProcessObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Set the interceptors of every job's attempts, sorted by
	 * {@link org.springframework.core.Ordered} or
	 * {@link org.springframework.core.annotation.Order @Order} (the first one outermost);
	 * interceptors without an order keep the given order, after the ordered ones.
	 * <p>
	 * Default none.
	 * @param interceptors the interceptors
	 * @see JobListenerContainer#setInterceptors
	 */
	public void setInterceptors(List<JobInterceptor> interceptors) {
		List<JobInterceptor> sorted = new ArrayList<>(interceptors);
		AnnotationAwareOrderComparator.sort(sorted);
		this.interceptors = List.copyOf(sorted);
	}

	/**
	 * Create the container of a queue.
	 * @param queue the queue
	 * @param handlers the handlers of the jobs on that queue
	 * @return the container, not started
	 */
	public JobListenerContainer createContainer(String queue, Collection<JobHandler> handlers) {
		ContainerProperties properties = this.queueProperties.getOrDefault(queue, this.containerProperties);
		JobListenerContainer container = new JobListenerContainer(queue, this.operations, this.jsonMapper, handlers,
				properties);
		container.setMetrics(this.metrics);
		if (this.errorHandler != null) {
			container.setErrorHandler(this.errorHandler);
		}
		container.setObservationEnabled(this.observationEnabled);
		container.setObservationRegistry(this.observationRegistry);
		container.setObservationConvention(this.observationConvention);
		container.setInterceptors(this.interceptors);
		return container;
	}

}
