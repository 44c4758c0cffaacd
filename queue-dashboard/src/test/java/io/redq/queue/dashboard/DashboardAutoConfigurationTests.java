package io.redq.queue.dashboard;

import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.outbox.JdbcJobOutbox;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * When the dashboard is configured: off unless enabled, on Spring MVC only, and a WebFlux
 * application that enables it fails to start saying why; a warning at startup when no
 * Spring Security guards it, and no change while Boot's max-permitted access allows none.
 * No Redis is touched.
 *
 * @author Redq team
 */
@ExtendWith(OutputCaptureExtension.class)
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

	@Test // GH-35
	void warnsAtStartupWhenNoSpringSecurityGuardsIt(CapturedOutput output) {
		this.servlet.withPropertyValues("redq.dashboard.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output)
				.contains("The Redq dashboard is served at /redq on the application's port "
						+ "(server.port, not management.server.port) without Spring Security")
				.doesNotContain("and can change the queues");
		});
		this.servlet.withPropertyValues("redq.dashboard.enabled=true", "redq.dashboard.read-only=false")
			.run((context) -> assertThat(output).contains("and can change the queues"));
	}

	@Test // GH-35
	void doesNotWarnBehindSpringSecurity(CapturedOutput output) {
		this.servlet.withPropertyValues("redq.dashboard.enabled=true")
			.withBean(SecurityFilterChain.class, () -> new DefaultSecurityFilterChain(AnyRequestMatcher.INSTANCE))
			.run((context) -> {
				assertThat(context).hasSingleBean(DashboardController.class);
				assertThat(output).doesNotContain("The Redq dashboard is served at");
			});
	}

	@Test // GH-35
	void isReadOnlyWhenTheActuatorsMaxPermittedAccessAllowsNoChanges() {
		for (String access : new String[] { "read-only", "none" }) {
			this.servlet
				.withPropertyValues("redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
						"management.endpoints.access.max-permitted=" + access)
				.run((context) -> {
					DashboardController controller = context.getBean(DashboardController.class);
					JobQueueInspector inspector = context.getBean(JobQueueInspector.class);
					clearInvocations(inspector);
					MockHttpServletRequest request = new MockHttpServletRequest("POST", "/redq/api/queues/ops/pause");
					assertThat(controller.session(request)).containsEntry("readOnly", true);
					assertThatExceptionOfType(DashboardGuard.ReadOnlyException.class)
						.isThrownBy(
								() -> context.getBean(QueuesController.class).pauseOrResume("ops", "pause", request))
						.withMessageContaining("management.endpoints.access.max-permitted");
					verifyNoInteractions(inspector);
				});
		}
		this.servlet
			.withPropertyValues("redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
					"management.endpoints.access.max-permitted=unrestricted")
			.run((context) -> assertThat(
					context.getBean(DashboardController.class).session(new MockHttpServletRequest()))
				.containsEntry("readOnly", false));
	}

	@Test // issue 35, item 3
	void servesTheOutboxsParkedRowsOnlyWhenTheApplicationHasAnOutbox() {
		this.servlet.withPropertyValues("redq.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(DashboardController.class)
				.doesNotHaveBean(ParkedRowsController.class));
		this.servlet.withPropertyValues("redq.dashboard.enabled=true")
			.withClassLoader(new FilteredClassLoader(JdbcJobOutbox.class))
			.run((context) -> assertThat(context).hasSingleBean(DashboardController.class)
				.doesNotHaveBean(ParkedRowsController.class));
		this.servlet.withPropertyValues("redq.dashboard.enabled=true")
			.withBean(JdbcJobOutbox.class, () -> mock(JdbcJobOutbox.class))
			.run((context) -> assertThat(context).hasSingleBean(ParkedRowsController.class));
	}

	@Test // issue 35, items 3 and 9
	void refusesChangesOfParkedRowsWhenTheActuatorsMaxPermittedAccessAllowsNoChanges() {
		this.servlet
			.withPropertyValues("redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
					"management.endpoints.access.max-permitted=read-only")
			.withBean(JdbcJobOutbox.class, () -> mock(JdbcJobOutbox.class))
			.run((context) -> {
				ParkedRowsController controller = context.getBean(ParkedRowsController.class);
				for (String action : new String[] { "resend", "discard" }) {
					assertThatExceptionOfType(DashboardGuard.ReadOnlyException.class)
						.isThrownBy(() -> controller.change(1, action,
								new MockHttpServletRequest("POST", "/redq/api/outbox/parked/1/" + action)))
						.withMessageContaining("management.endpoints.access.max-permitted");
				}
				verifyNoInteractions(context.getBean(JdbcJobOutbox.class));
			});
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

		@Bean
		Keyspace redqKeyspace() {
			return new Keyspace("redq");
		}

	}

}
