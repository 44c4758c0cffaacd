package io.redq.queue.autoconfigure.endpoint;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobQueueEndpointAutoConfiguration}: when the {@code redq} endpoint
 * exists.
 *
 * @author Redq team
 */
@WithRedis
class JobQueueEndpointAutoConfigurationIntegrationTests {

	private final ApplicationContextRunner runner;

	JobQueueEndpointAutoConfigurationIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(JobQueueEndpointAutoConfiguration.class))
			.withPropertyValues("redq.listener.auto-startup=false")
			.withUserConfiguration(Jobs.class);
	}

	@Test
	void endpointExistsWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redq")
			.run((context) -> assertThat(context).hasSingleBean(JobQueueEndpoint.class));
	}

	@Test
	void endpointServesTheQueuesOfTheApplication() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=redq", "redq.jobs.report.queue=reports")
			.run((context) -> assertThat(context.getBean(JobQueueEndpoint.class).queues().queues())
				.containsOnlyKeys("mail", "reports"));
	}

	@Test
	void noEndpointWhenNotExposed() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueueEndpoint.class));
	}

	@Test
	void noEndpointWhenAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=redq",
					"management.endpoint.redq.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueueEndpoint.class));
	}

	@Test
	void noEndpointWithoutActuator() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redq")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueueEndpoint.class));
	}

	@Test
	void noEndpointWhenRedqIsDisabled() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redq", "redq.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueueEndpoint.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@QueuedJob(name = "send", queue = "mail")
		void send(String payload) {
		}

	}

}
