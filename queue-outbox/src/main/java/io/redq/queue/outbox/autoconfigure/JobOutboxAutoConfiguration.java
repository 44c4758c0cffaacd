package io.redq.queue.outbox.autoconfigure;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.JdbcOutboxRelay;
import io.redq.queue.outbox.OutboxMeterBinder;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
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
 * {@code JobDispatcher} writes the jobs of each transaction to, a {@link JdbcOutboxRelay}
 * that moves them to Redis, the outbox table's creation
 * ({@code redq.outbox.jdbc.initialize-schema}, by default for embedded databases only),
 * its meters and its health.
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
	JdbcJobOutbox jobOutbox(RedisJobDispatcher dispatcher, DataSource dataSource,
			ObjectProvider<JsonMapper> jsonMapper) {
		return new JdbcJobOutbox(dispatcher, dataSource, jsonMapper.getIfAvailable(JsonMapper::shared));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "redq.outbox.relay.enabled", matchIfMissing = true)
	JdbcOutboxRelay jobOutboxRelay(JdbcJobOutbox outbox, RedisJobQueueOperations operations, DataSource dataSource,
			JobOutboxProperties properties) {
		JdbcOutboxRelay relay = new JdbcOutboxRelay(outbox, operations.getEnqueueOperations(), dataSource);
		JobOutboxProperties.Relay settings = properties.getRelay();
		relay.setBatchSize(settings.getBatchSize());
		relay.setPollInterval(settings.getPollInterval());
		relay.setResendWindow(settings.getResendWindow());
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
