package io.redq.queue.autoconfigure;

import io.redq.queue.lock.RedisLockService;
import io.redq.queue.redis.Keyspace;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration for Redq's distributed locks: a {@link RedisLockService} on the
 * application's {@link RedisConnectionFactory}, set up from {@code redq.lock.*} and
 * {@code redq.key-prefix}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redq.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@EnableConfigurationProperties(JobQueueProperties.class)
@Import(KeyspaceConfiguration.class)
public final class RedisLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLockService redisLockService(RedisConnectionFactory connectionFactory, JobQueueProperties properties,
			Keyspace keyspace) {
		RedisLockService locks = new RedisLockService(connectionFactory, keyspace);
		locks.setLeaseTime(properties.getLock().getLeaseTime());
		locks.setWatchdog(properties.getLock().isWatchdog());
		locks.setReplicasToWaitFor(properties.getDurability().getReplicas(),
				properties.getDurability().getReplicaTimeout());
		return locks;
	}

}
