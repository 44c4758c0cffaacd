package io.redq.queue.autoconfigure;

import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Warns at startup when Redis may evict keys: an evicted key is a lost job.
 *
 * @author Redq team
 * @since 0.1.0
 */
class RedisEvictionPolicyCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RedisEvictionPolicyCheck.class);

	private final RedisConnectionFactory connectionFactory;

	RedisEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		String policy;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties config = connection.serverCommands().getConfig("maxmemory-policy");
			policy = (config != null) ? config.getProperty("maxmemory-policy") : null;
		}
		catch (RuntimeException ex) {
			logger.info("Could not read Redis maxmemory-policy (" + ex.getMessage() + "); make sure it is "
					+ "'noeviction', or Redis may evict jobs when it runs out of memory");
			return;
		}
		if (policy != null && !"noeviction".equals(policy)) {
			logger.warn("Redis maxmemory-policy is '" + policy + "': when Redis runs out of memory it evicts keys, "
					+ "and an evicted key is a lost job. Set maxmemory-policy to 'noeviction' for the Redis that "
					+ "holds Redq queues");
		}
	}

}
