package io.redq.queue.autoconfigure;

import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobInterceptor;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;

/**
 * Configure a {@link JobListenerContainerFactory} with the settings of the
 * {@code redq.listener.*} and {@code redq.queues.*} properties, the metrics and the
 * observation support that Spring Boot's auto-configuration sets up.
 *
 * <p>
 * Can be injected into application code and used to define a second
 * {@code JobListenerContainerFactory} whose configuration is based upon that produced by
 * auto-configuration; settings made after {@link #configure} override it.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobListenerContainerFactoryConfigurer {

	private final JobQueueProperties properties;

	private @Nullable JobMetrics metrics;

	private @Nullable ObservationRegistry observationRegistry;

	private @Nullable JobProcessObservationConvention observationConvention;

	private boolean virtualThreads;

	private @Nullable JobErrorHandler errorHandler;

	private List<JobInterceptor> interceptors = List.of();

	/**
	 * Create an instance.
	 * @param properties the properties to apply
	 */
	public JobListenerContainerFactoryConfigurer(JobQueueProperties properties) {
		this.properties = properties;
	}

	/**
	 * Set the metrics the containers report to.
	 * @param metrics the metrics
	 */
	void setMetrics(@Nullable JobMetrics metrics) {
		this.metrics = metrics;
	}

	/**
	 * Set the registry that observes processing when observation is enabled.
	 * @param observationRegistry the registry
	 */
	void setObservationRegistry(@Nullable ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Set the convention that names and tags the processing observations.
	 * @param observationConvention the convention
	 */
	void setObservationConvention(@Nullable JobProcessObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Set whether jobs run on virtual threads, as Spring Boot's
	 * {@code spring.threads.virtual.enabled} says.
	 * @param virtualThreads whether to use virtual threads
	 */
	void setVirtualThreads(boolean virtualThreads) {
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Set the error handler of every job that does not name its own.
	 * @param errorHandler the error handler, or {@code null} for the default
	 */
	void setErrorHandler(@Nullable JobErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	/**
	 * Set the interceptors of every job's attempts, in order.
	 * @param interceptors the interceptors
	 */
	void setInterceptors(List<JobInterceptor> interceptors) {
		this.interceptors = interceptors;
	}

	/**
	 * Configure the specified factory. The factory can be further tuned and default
	 * settings can be overridden.
	 * @param factory the {@link JobListenerContainerFactory} instance to configure
	 */
	public void configure(JobListenerContainerFactory factory) {
		PropertyMapper map = PropertyMapper.get();
		map.from(this.metrics).to(factory::setMetrics);
		map.from(this.properties::isObservationEnabled).to(factory::setObservationEnabled);
		map.from(this.observationRegistry).to(factory::setObservationRegistry);
		map.from(this.observationConvention).to(factory::setObservationConvention);
		map.from(this.errorHandler).to(factory::setErrorHandler);
		factory.setInterceptors(this.interceptors);
		ContainerProperties defaults = factory.getContainerProperties();
		this.properties.getListener().applyTo(defaults);
		map.from(this.virtualThreads).to(defaults::setVirtualThreads);
		this.properties.getQueues().forEach((queue, overrides) -> {
			ContainerProperties container = new ContainerProperties(defaults);
			overrides.applyTo(container);
			factory.setQueueProperties(queue, container);
		});
	}

}
