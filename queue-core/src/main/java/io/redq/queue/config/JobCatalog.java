package io.redq.queue.config;

import java.util.Collection;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The jobs an application knows by name: those it handles, registered with their
 * handlers, and those it only dispatches. The dispatcher and the operating tools
 * (endpoint, metrics) read it; it knows nothing of listener containers. Registered by
 * {@code @EnableJobQueue} under {@link JobQueueConfigUtils#JOB_CATALOG_BEAN_NAME}.
 *
 * @author Redq team
 * @since 0.1.0
 * @see JobListenerRegistry
 */
public class JobCatalog implements JobDefinitions {

	private final Map<String, JobDefinition> definitions = new LinkedHashMap<>();

	/**
	 * Register a job; the jobs are listed in the order they were registered.
	 * @param definition the job
	 * @throws IllegalStateException when another job has the same name
	 */
	public synchronized void register(JobDefinition definition) {
		JobDefinition existing = this.definitions.putIfAbsent(definition.name(), definition);
		Assert.state(existing == null, () -> "Another job is already registered with name '" + definition.name()
				+ "' (queue '" + existing.queue() + "'); job names must be unique");
	}

	@Override
	public synchronized @Nullable JobDefinition find(String name) {
		return this.definitions.get(name);
	}

	@Override
	public synchronized Collection<JobDefinition> all() {
		return List.copyOf(this.definitions.values());
	}

}
