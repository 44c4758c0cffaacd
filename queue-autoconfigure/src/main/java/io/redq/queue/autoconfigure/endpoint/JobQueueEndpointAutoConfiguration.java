package io.redq.queue.autoconfigure.endpoint;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.inspect.JobQueueInspector;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Auto-configuration of the {@link JobQueueEndpoint} ({@code redq} actuator endpoint),
 * when Spring Boot Actuator is on the class path and the endpoint is accessible and
 * exposed; with the {@link JobQueueEndpointRuntimeHints} of its types for native images.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(after = JobQueueAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(JobQueueInspector.class)
@ConditionalOnAvailableEndpoint(JobQueueEndpoint.class)
@ImportRuntimeHints(JobQueueEndpointRuntimeHints.class)
public final class JobQueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JobQueueEndpoint jobQueueEndpoint(JobQueueInspector inspector) {
		return new JobQueueEndpoint(inspector);
	}

}
