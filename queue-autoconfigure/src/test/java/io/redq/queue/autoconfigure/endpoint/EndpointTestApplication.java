package io.redq.queue.autoconfigure.endpoint;

import io.redq.queue.annotation.QueuedJob;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The application behind the endpoint's HTTP tests: it handles job {@code work} on queue
 * {@code ops} and dispatches job {@code report} to queue {@code reports} (see the tests'
 * properties).
 *
 * @author Redq team
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class EndpointTestApplication {

	static final String QUEUE = "ops";

	@QueuedJob(name = "work", queue = QUEUE, maxAttempts = 1)
	void work(String payload) {
		// never runs: the tests start no listener container in this application
	}

}
