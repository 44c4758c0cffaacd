package io.redq.queue.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.metrics.MicrometerJobMetrics;
import io.redq.queue.metrics.QueueMeterBinder;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Redq's Micrometer metrics: meters for dispatched and processed
 * jobs, and gauges of every queue of the jobs this application handles or dispatches.
 *
 * @author Redq team
 * @since 0.1.0
 * @see MicrometerJobMetrics
 * @see QueueMeterBinder
 */
@AutoConfiguration(after = JobQueueAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, JobQueueInspector.class })
public final class JobQueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(JobMetrics.class)
	MicrometerJobMetrics jobQueueMetrics(MeterRegistry meterRegistry) {
		return new MicrometerJobMetrics(meterRegistry);
	}

	// every job is registered once all singletons exist (the @QueuedJob post-processor
	// registers them, with the redq.jobs.* ones, before this callback runs)
	@Bean
	SmartInitializingSingleton jobQueueGauges(MeterRegistry meterRegistry, JobQueueInspector inspector) {
		return () -> new QueueMeterBinder(inspector).bindTo(meterRegistry);
	}

}
