package io.redq.queue.autoconfigure.health;

import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.autoconfigure.JobQueueProperties;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.inspect.JobQueueInspector;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link JobQueueHealthIndicator} ({@code redq} health
 * component), when Spring Boot's health support is on the class path.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(after = JobQueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({ JobQueueInspector.class, JobListenerRegistry.class })
@ConditionalOnEnabledHealthIndicator("redq")
public final class JobQueueHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "redqHealthIndicator")
	JobQueueHealthIndicator redqHealthIndicator(JobQueueInspector inspector, JobListenerRegistry registry,
			JobQueueProperties properties) {
		JobQueueProperties.Health health = properties.getHealth();
		return new JobQueueHealthIndicator(inspector, registry, health.getMaxBacklog(), health.getMaxOldestAge(),
				new Status(health.getThresholdStatus()));
	}

}
