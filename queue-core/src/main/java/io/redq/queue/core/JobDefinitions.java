package io.redq.queue.core;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * The jobs an application knows by name: those it handles and those it only dispatches.
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobDefinitions {

	/**
	 * Return the job with the given name.
	 * @param name the job name
	 * @return the definition, or {@code null} when no job has that name
	 */
	@Nullable JobDefinition find(String name);

	/**
	 * Return every known job.
	 * @return the definitions
	 */
	Collection<JobDefinition> all();

}
