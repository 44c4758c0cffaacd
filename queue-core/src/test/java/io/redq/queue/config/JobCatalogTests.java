package io.redq.queue.config;

import java.time.Duration;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobHandler;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link JobCatalog} and how the {@link JobListenerRegistry} fills it.
 *
 * @author Redq team
 */
class JobCatalogTests {

	private final JobCatalog catalog = new JobCatalog();

	@Test
	void jobsAreListedInTheOrderTheyWereRegistered() {
		this.catalog.register(job("b", "one"));
		this.catalog.register(job("a", "two"));
		assertThat(this.catalog.all()).extracting(JobDefinition::name).containsExactly("b", "a");
		assertThat(this.catalog.find("a").queue()).isEqualTo("two");
		assertThat(this.catalog.find("c")).isNull();
	}

	@Test
	void jobNamesAreUnique() {
		this.catalog.register(job("send", "mail"));
		assertThatIllegalStateException().isThrownBy(() -> this.catalog.register(job("send", "other")))
			.withMessage("Another job is already registered with name 'send' (queue 'mail'); job names must be unique");
	}

	@Test
	void registryRegistersEachHandlersJobInTheCatalog() {
		JobListenerRegistry registry = new JobListenerRegistry(this.catalog);
		registry.registerHandler(new NoopHandler(job("send", "mail")));
		assertThat(this.catalog.find("send")).isNotNull();
		assertThat(registry.getJobCatalog()).isSameAs(this.catalog);
		assertThatIllegalStateException().isThrownBy(() -> registry.registerHandler(new NoopHandler(job("send", "x"))));
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, null);
	}

	private record NoopHandler(JobDefinition getDefinition) implements JobHandler {

		@Override
		public @Nullable Object readPayload(@Nullable JsonNode payload) {
			return payload;
		}

		@Override
		public void handle(@Nullable Object payload, JobContext context) {
		}

	}

}
