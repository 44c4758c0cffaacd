package io.redq.queue.dashboard;

import io.redq.queue.inspect.JobQueueInspector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Auto-configuration of the Redq dashboard, when {@code redq.dashboard.enabled=true}: its
 * page and assets under {@code redq.dashboard.path} and the JSON they read, in a Spring
 * MVC application. A reactive (WebFlux) application fails to start instead, since the
 * dashboard does not support it.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "io.redq.queue.autoconfigure.JobQueueAutoConfiguration")
@ConditionalOnBooleanProperty("redq.dashboard.enabled")
@EnableConfigurationProperties(DashboardProperties.class)
public final class DashboardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DashboardAutoConfiguration.class);

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass(DispatcherServlet.class)
	@ConditionalOnBean({ JobQueueInspector.class, RedisConnectionFactory.class })
	static class ServletDashboardConfiguration {

		@Bean
		DashboardController redqDashboardController(JobQueueInspector inspector, DashboardProperties properties,
				RedisConnectionFactory connectionFactory, Environment environment) {
			// the queues' key prefix: the log sits beside the queues
			ActionLog actions = new ActionLog(connectionFactory, environment.getProperty("redq.key-prefix", "redq"));
			return new DashboardController(inspector, actions, properties.isReadOnly());
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
