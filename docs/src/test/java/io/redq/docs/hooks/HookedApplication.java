package io.redq.docs.hooks;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.QueuedJob;
import org.slf4j.MDC;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The application that the "Interceptors and events" examples run in: a job that records
 * the tenant it sees, and one that always fails.
 *
 * @author Redq team
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ TenantPropagation.class, JobAlerts.class, HookedApplication.Reports.class })
class HookedApplication {

	static class Reports {

		final List<String> built = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "build-report", queue = "reports")
		void build(String report) {
			this.built.add(report + " for " + MDC.get("tenant"));
		}

		@QueuedJob(name = "broken-report", queue = "reports", maxAttempts = 1)
		void broken(String report) {
			throw new IllegalStateException("cannot build " + report);
		}

	}

}
