package io.redq.docs.tracing;

import io.micrometer.common.KeyValues;
import io.redq.queue.support.micrometer.DefaultJobProcessObservationConvention;
import io.redq.queue.support.micrometer.JobProcessReceiverContext;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The example of the Tracing page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
@Configuration(proxyBeanMethods = false)
class TracingExamples {

	// tag::convention[]
	@Bean
	DefaultJobProcessObservationConvention tenantProcessConvention() {
		return new DefaultJobProcessObservationConvention() {

			@Override
			public KeyValues getLowCardinalityKeyValues(JobProcessReceiverContext context) {
				return super.getLowCardinalityKeyValues(context).and("tenant",
						context.getHeaders().getOrDefault("tenant", "none"));
			}

		};
	}
	// end::convention[]

}
