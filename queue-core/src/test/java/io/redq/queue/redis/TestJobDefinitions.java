package io.redq.queue.redis;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;

/**
 * The job definitions a test dispatches by name.
 *
 * @author Redq team
 */
final class TestJobDefinitions {

	private TestJobDefinitions() {
	}

	/**
	 * Return definitions that find the given ones by name.
	 * @param definitions the definitions
	 * @return the definitions
	 */
	static JobDefinitions of(JobDefinition... definitions) {
		return new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return all().stream().filter((definition) -> definition.name().equals(name)).findFirst().orElse(null);
			}

			@Override
			public Collection<JobDefinition> all() {
				return List.of(definitions);
			}

		};
	}

}
