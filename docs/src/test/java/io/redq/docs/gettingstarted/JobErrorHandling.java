package io.redq.docs.gettingstarted;

// tag::class[]
import io.redq.queue.listener.DefaultJobErrorHandler;
import io.redq.queue.listener.JobErrorHandler;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
// end::class[]

/**
 * The application's error handler of the Getting started page, compiled for the page that
 * quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@Configuration(proxyBeanMethods = false)
class JobErrorHandling {

	@Bean
	JobErrorHandler jobErrorHandler(Alerts alerts) {
		// each job keeps its own @Backoff, else redq.job.backoff.*
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(
				(job, exception) -> alerts.jobDied(job.getId(), exception));
		errorHandler.addNotRetryableExceptions(IllegalArgumentException.class);
		return errorHandler;
	}

}
// end::class[]

interface Alerts {

	void jobDied(String jobId, Throwable exception);

}
