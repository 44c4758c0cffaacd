package io.redq.queue.autoconfigure;

import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisSentinel;
import io.redq.queue.test.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The application context runner of the auto-configuration tests: Redq's
 * auto-configuration after Spring Boot's Redis and Jackson auto-configuration, connected
 * to a test's Redis or Redis Cluster. Tests add their own auto-configurations, properties
 * and beans.
 *
 * @author Redq team
 */
public final class JobQueueContextRunner {

	private JobQueueContextRunner() {
	}

	/**
	 * Return a runner on the given Redis.
	 * @param redis the Redis the context connects to
	 * @return the runner
	 */
	public static ApplicationContextRunner on(RedisServer redis) {
		return on(redis.springProperties());
	}

	/**
	 * Return a runner on the given Redis Cluster.
	 * @param cluster the cluster the context connects to
	 * @return the runner
	 */
	public static ApplicationContextRunner on(RedisCluster cluster) {
		return on(cluster.springProperties());
	}

	/**
	 * Return a runner on the master of the given Sentinel group.
	 * @param sentinel the Sentinels the context asks for the master
	 * @return the runner
	 */
	public static ApplicationContextRunner on(RedisSentinel sentinel) {
		return on(sentinel.springProperties());
	}

	private static ApplicationContextRunner on(String... springProperties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					JobQueueAutoConfiguration.class, RecurringJobsAutoConfiguration.class))
			.withPropertyValues(springProperties);
	}

}
