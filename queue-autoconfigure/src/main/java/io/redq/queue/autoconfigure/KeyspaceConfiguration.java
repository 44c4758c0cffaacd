package io.redq.queue.autoconfigure;

import io.redq.queue.redis.Keyspace;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The one {@link Keyspace} of the application, built from {@code redq.key-prefix}: the
 * queues, the locks and the dashboard name their keys through it. Imported by each
 * auto-configuration that needs it, so that each works on its own.
 *
 * @author Redq team
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(JobQueueProperties.class)
class KeyspaceConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Keyspace redqKeyspace(JobQueueProperties properties) {
		return new Keyspace(properties.getKeyPrefix());
	}

}
