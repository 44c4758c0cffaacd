package io.redq.queue.annotation;

import io.redq.queue.config.JobListenerRegistry;

/**
 * Callback for beans that register jobs or handlers programmatically, before the listener
 * containers are created.
 *
 * @author Redq team
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobListenerConfigurer {

	/**
	 * Register jobs or handlers.
	 * @param registry the registry
	 */
	void configureJobListeners(JobListenerRegistry registry);

}
