package io.redq.docs.gettingstarted;

// tag::no-retry[]
import java.io.FileNotFoundException;
// end::no-retry[]
// tag::handler-bean[]
import java.time.Duration;
// end::handler-bean[]

// tag::no-retry[]
// tag::handler-bean[]
import io.redq.queue.annotation.QueuedJob;
// end::no-retry[]
import io.redq.queue.core.JobBackoff;
import io.redq.queue.listener.DefaultJobErrorHandler;
import io.redq.queue.listener.JobErrorHandler;

import org.springframework.context.annotation.Bean;
// end::handler-bean[]

/**
 * The error handling of the Getting started page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
class ErrorHandlingExamples {

	// tag::no-retry[]
	@QueuedJob(name = "import-file", queue = "imports",
			noRetryFor = { IllegalArgumentException.class, FileNotFoundException.class })
	void importFile(ImportRequest request) {
		// read the file
	}
	// end::no-retry[]

	// tag::handler-bean[]
	@Bean(defaultCandidate = false)
	JobErrorHandler quickRetries() {
		// every job it handles waits 5s between attempts, whatever its own backoff says
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(
				new JobBackoff(Duration.ofSeconds(5), 1.0, Duration.ofSeconds(5), Duration.ZERO));
		errorHandler.addNotRetryableExceptions(IllegalArgumentException.class);
		return errorHandler;
	}

	@QueuedJob(name = "ping-partner", errorHandler = "quickRetries")
	void pingPartner(String partner) {
		// call the partner
	}
	// end::handler-bean[]

	record ImportRequest(String file) {
	}

}
