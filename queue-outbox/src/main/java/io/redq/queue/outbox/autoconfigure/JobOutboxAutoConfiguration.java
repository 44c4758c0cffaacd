package io.redq.queue.outbox.autoconfigure;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.JdbcOutboxRelay;
import io.redq.queue.outbox.OutboxMeterBinder;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.init.PropertiesBasedDataSourceScriptDatabaseInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of the transactional outbox on the application's single
 * {@link DataSource}: a {@link JdbcJobOutbox} that the transaction-aware
 * {@code JobDispatcher} writes the jobs and timer calls of each transaction to, a
 * {@link JdbcOutboxRelay} that applies them to Redis, the outbox tables' creation
 * ({@code redq.outbox.jdbc.initialize-schema}, by default for embedded databases only),
 * their meters and their health. A database the outbox does not support (see
 * {@link io.redq.queue.outbox.OutboxDatabase}) fails the startup with a message that
 * names the supported ones.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(after = JobQueueAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JdbcTemplate.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBean({ RedisJobDispatcher.class, RedisJobQueueOperations.class })
@ConditionalOnBooleanProperty(name = "redq.outbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(JobOutboxProperties.class)
public final class JobOutboxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JdbcJobOutbox jobOutbox(RedisJobDispatcher dispatcher, DataSource dataSource) {
		return new JdbcJobOutbox(dispatcher, dataSource);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "redq.outbox.relay.enabled", matchIfMissing = true)
	JdbcOutboxRelay jobOutboxRelay(JdbcJobOutbox outbox, RedisJobQueueOperations operations,
			JobOutboxProperties properties) {
		JdbcOutboxRelay relay = new JdbcOutboxRelay(outbox, operations);
		JobOutboxProperties.Relay settings = properties.getRelay();
		relay.setBatchSize(settings.getBatchSize());
		relay.setPollInterval(settings.getPollInterval());
		relay.setResendWindow(settings.getResendWindow());
		relay.setMaxAttempts(settings.getMaxAttempts());
		outbox.setCommitListener(relay::wakeUp);
		return relay;
	}

	@Bean
	@ConditionalOnMissingBean(name = "jobOutboxDataSourceInitializer")
	PropertiesBasedDataSourceScriptDatabaseInitializer<JobOutboxProperties.Jdbc> jobOutboxDataSourceInitializer(
			DataSource dataSource, JobOutboxProperties properties) {
		return new PropertiesBasedDataSourceScriptDatabaseInitializer<>(dataSource, properties.getJdbc());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class OutboxMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		OutboxMeterBinder jobOutboxMeterBinder(JdbcJobOutbox outbox) {
			return new OutboxMeterBinder(outbox);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("redqOutbox")
	static class OutboxHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redqOutboxHealthIndicator")
		OutboxHealthIndicator redqOutboxHealthIndicator(JdbcJobOutbox outbox, JobOutboxProperties properties) {
			return new OutboxHealthIndicator(outbox, properties.getHealth().getMaxLag());
		}

	}

}
