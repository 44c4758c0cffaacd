package io.redq.queue.dashboard;

import io.redq.queue.inspect.JobQueueInspector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * When the dashboard is configured: off unless enabled, on Spring MVC only, and a WebFlux
 * application that enables it fails to start saying why. No Redis is touched.
 *
 * @author Redq team
 */
class DashboardAutoConfigurationTests {

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DashboardAutoConfiguration.class))
		.withUserConfiguration(InspectorConfiguration.class);

	@Test
	void isOffUnlessEnabled() {
		this.servlet.run((context) -> assertThat(context).doesNotHaveBean(DashboardController.class));
		this.servlet.withPropertyValues("redq.dashboard.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DashboardController.class));
	}

	@Test
	void servesTheDashboardInAServletApplicationWhenEnabled() {
		this.servlet.withPropertyValues("redq.dashboard.enabled=true").run((context) -> {
			assertThat(context).hasSingleBean(DashboardController.class);
			assertThat(context.getBean(DashboardProperties.class).isReadOnly()).isTrue();
			assertThat(context.getBean(DashboardProperties.class).getPath()).isEqualTo("/redq");
		});
	}

	@Test
	void rejectsAPathThatDoesNotStartWithASlash() {
		this.servlet.withPropertyValues("redq.dashboard.enabled=true", "redq.dashboard.path=redq")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redq.dashboard.path must start with '/'"));
	}

	@Test
	void aReactiveApplicationThatEnablesItFailsToStartSayingWhy() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DashboardAutoConfiguration.class))
			.withUserConfiguration(InspectorConfiguration.class)
			.withPropertyValues("redq.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("reactive (WebFlux)")
				.hasStackTraceContaining("needs Spring MVC"));
	}

	@Configuration(proxyBeanMethods = false)
	static class InspectorConfiguration {

		// never called: no test here reads a queue
		@Bean
		JobQueueInspector jobQueueInspector() {
			return mock(JobQueueInspector.class);
		}

		// never connected
		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory();
		}

	}

}
