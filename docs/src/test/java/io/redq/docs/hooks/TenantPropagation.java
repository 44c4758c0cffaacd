package io.redq.docs.hooks;

// The "Interceptors and events" example of interceptors, which the page quotes whole: the
// tenant of the thread that dispatches a job travels with it, and is in the MDC while it runs.
// tag::class[]
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobInterceptor;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

@Configuration(proxyBeanMethods = false)
class TenantPropagation {

	@Bean
	DispatchInterceptor tenantHeader() {
		return new DispatchInterceptor() {

			@Override
			public void beforeDispatch(OutgoingJob job) {
				String tenant = MDC.get("tenant");
				if (tenant == null) {
					// vetoes the dispatch: the caller gets a DispatchVetoedException
					throw new IllegalStateException("no tenant on this thread");
				}
				job.getHeaders().put("tenant", tenant);
			}

		};
	}

	@Bean
	@Order(1)
	JobInterceptor tenantInMdc() {
		return new JobInterceptor() {

			@Override
			public void intercept(JobContext job, @Nullable Object payload, Invocation invocation) throws Exception {
				try (MDC.MDCCloseable tenant = MDC.putCloseable("tenant", job.getHeaders().get("tenant"))) {
					invocation.proceed();
				}
			}

		};
	}

}
// end::class[]
