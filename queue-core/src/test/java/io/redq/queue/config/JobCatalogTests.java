package io.redq.queue.config;

import java.time.Duration;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.StringJobHandler;
import org.junit.jupiter.api.Test;

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
		registry.registerHandler(noopHandler(job("send", "mail")));
		assertThat(this.catalog.find("send")).isNotNull();
		assertThat(registry.getJobCatalog()).isSameAs(this.catalog);
		assertThatIllegalStateException().isThrownBy(() -> registry.registerHandler(noopHandler(job("send", "x"))));
	}

	private static StringJobHandler noopHandler(JobDefinition job) {
		return new StringJobHandler(job, (payload, context) -> {
		});
	}

	private static JobDefinition job(String name, String queue) {
		return new JobDefinition(name, queue, 1, Duration.ZERO, JobBackoff.DEFAULT, null);
	}

}
