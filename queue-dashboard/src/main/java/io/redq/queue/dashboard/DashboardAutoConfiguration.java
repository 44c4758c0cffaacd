package io.redq.queue.dashboard;

import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.redis.Keyspace;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Auto-configuration of the Redq dashboard, when {@code redq.dashboard.enabled=true}: its
 * page and assets under {@code redq.dashboard.path} and the JSON they read, in a Spring
 * MVC application, with the outbox's parked rows when the application has a
 * {@code queue-outbox} outbox. A reactive (WebFlux) application fails to start instead,
 * since the dashboard does not support it.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "io.redq.queue.autoconfigure.JobQueueAutoConfiguration",
		"io.redq.queue.outbox.autoconfigure.JobOutboxAutoConfiguration" })
@ConditionalOnBooleanProperty("redq.dashboard.enabled")
@EnableConfigurationProperties(DashboardProperties.class)
public final class DashboardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DashboardAutoConfiguration.class);

	private static final String SECURITY_FILTER_CHAIN = "org.springframework.security.web.SecurityFilterChain";

	/**
	 * The values of {@code management.endpoints.access.max-permitted}, as Spring Boot
	 * Actuator's {@code Access}, which the dashboard does not depend on.
	 */
	enum MaxPermitted {

		NONE, READ_ONLY, UNRESTRICTED

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass(DispatcherServlet.class)
	@ConditionalOnBean({ JobQueueInspector.class, Keyspace.class, RedisConnectionFactory.class })
	static class ServletDashboardConfiguration {

		@Bean
		DashboardGuard redqDashboardGuard(JobQueueInspector inspector, DashboardProperties properties,
				RedisConnectionFactory connectionFactory, Keyspace keyspace, Environment environment) {
			ActionLog actions = new ActionLog(connectionFactory, keyspace);
			return new DashboardGuard(inspector, actions, properties, changesPermitted(environment));
		}

		@Bean
		DashboardErrors redqDashboardErrors() {
			return new DashboardErrors();
		}

		@Bean
		DashboardController redqDashboardController(JobQueueInspector inspector, DashboardGuard guard) {
			return new DashboardController(inspector, guard);
		}

		@Bean
		QueuesController redqDashboardQueuesController(JobQueueInspector inspector, DashboardGuard guard) {
			return new QueuesController(inspector, guard);
		}

		@Bean
		JobsController redqDashboardJobsController(JobQueueInspector inspector, DashboardGuard guard) {
			return new JobsController(inspector, guard);
		}

		@Bean
		RecurringJobsController redqDashboardRecurringJobsController(JobQueueInspector inspector,
				DashboardGuard guard) {
			return new RecurringJobsController(inspector, guard);
		}

		@Bean
		BatchesController redqDashboardBatchesController(JobQueueInspector inspector, DashboardGuard guard) {
			return new BatchesController(inspector, guard);
		}

		@Bean
		ChainsController redqDashboardChainsController(JobQueueInspector inspector, DashboardGuard guard) {
			return new ChainsController(inspector, guard);
		}

		@Bean
		InstancesController redqDashboardInstancesController(JobQueueInspector inspector) {
			return new InstancesController(inspector);
		}

		// Boot's cap on the access of every actuator endpoint, which the dashboard
		// honours
		// for its changes though it is none
		private static boolean changesPermitted(Environment environment) {
			return Binder.get(environment)
				.bind("management.endpoints.access.max-permitted", MaxPermitted.class)
				.orElse(MaxPermitted.UNRESTRICTED) == MaxPermitted.UNRESTRICTED;
		}

		@Bean
		static SmartInitializingSingleton redqDashboardSecurityWarning(ListableBeanFactory beanFactory,
				DashboardProperties properties, Environment environment) {
			return () -> {
				if (!isSecured(beanFactory)) {
					logger.warn("The Redq dashboard is served at " + properties.getPath() + " on the application's "
							+ "port (server.port, not management.server.port) without Spring Security: whoever reaches "
							+ "that port sees the payloads, errors and stack traces of the jobs and the hosts and "
							+ "process ids of the instances"
							+ (!properties.isReadOnly() && changesPermitted(environment) ? ", and can change the queues"
									: "")
							+ ". Restrict the path to the people who operate the queues (see the dashboard's "
							+ "documentation), or keep the port private.");
				}
			};
		}

		private static boolean isSecured(ListableBeanFactory beanFactory) {
			ClassLoader classLoader = DashboardAutoConfiguration.class.getClassLoader();
			return ClassUtils.isPresent(SECURITY_FILTER_CHAIN, classLoader)
					&& beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(SECURITY_FILTER_CHAIN, classLoader),
							true, false).length > 0;
		}

		// sizes the hourly statistics of the application's queues, once all jobs are
		// known
		@Bean
		SmartInitializingSingleton redqDashboardStatisticsRetention(JobQueueInspector inspector,
				DashboardProperties properties) {
			inspector.setStatisticsRetention(properties.getStatisticsRetention());
			return () -> {
				try {
					inspector.applyStatisticsRetention();
				}
				catch (RuntimeException ex) {
					// Redis may be away at startup; the queues keep their retention
					logger.warn("Could not write the statistics retention of the queues: " + ex.getMessage());
				}
			};
		}

		@Bean
		WebMvcConfigurer redqDashboardAssets(DashboardProperties properties) {
			return new WebMvcConfigurer() {

				@Override
				public void addResourceHandlers(ResourceHandlerRegistry registry) {
					registry.addResourceHandler(properties.getPath() + "/assets/**")
						.addResourceLocations("classpath:/META-INF/redq-dashboard/");
				}

			};
		}

		// the outbox's parked rows, when the application has an outbox of queue-outbox
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "io.redq.queue.outbox.JdbcJobOutbox")
		@ConditionalOnBean(type = "io.redq.queue.outbox.JdbcJobOutbox")
		static class OutboxDashboardConfiguration {

			@Bean
			ParkedRowsController redqDashboardParkedRowsController(JdbcJobOutbox outbox, DashboardGuard guard) {
				return new ParkedRowsController(outbox, guard);
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	static class ReactiveDashboardConfiguration {

		@Bean
		static SmartInitializingSingleton redqDashboardNotSupported() {
			return () -> {
				throw new IllegalStateException("redq.dashboard.enabled=true, but this is a reactive (WebFlux) "
						+ "application and the Redq dashboard needs Spring MVC: add spring-boot-starter-webmvc, "
						+ "or remove redq.dashboard.enabled and use the redq actuator endpoint");
			};
		}

	}

}
