package io.redq.queue.testkit;

import io.redq.queue.test.RedisServerInitializer;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Test configuration that connects the application to a real Redis from
 * {@code queue-test}: the one {@link RedisServerInitializer#sharedServer()} starts once
 * per JVM ({@code REDQ_TEST_REDIS_URL}, else a {@code redis-server} on a free port), as
 * {@link RedisServerConnectionDetails}. Import it into a {@code @SpringBootTest}:
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;Import(RedisServerTestConfiguration.class)
 * class MailJobsTests { ... }
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 */
@TestConfiguration(proxyBeanMethods = false)
public class RedisServerTestConfiguration {

	@Bean
	RedisServerConnectionDetails redisServerConnectionDetails() {
		return new RedisServerConnectionDetails(RedisServerInitializer.sharedServer());
	}

}
