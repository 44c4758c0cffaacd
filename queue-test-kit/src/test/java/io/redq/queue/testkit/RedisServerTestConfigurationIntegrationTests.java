package io.redq.queue.testkit;

import io.redq.queue.test.RedisServer;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisServerTestConfiguration} and
 * {@link RedisServerConnectionDetails}.
 *
 * @author Redq team
 */
class RedisServerTestConfigurationIntegrationTests {

	@Test
	void connectsSpringBootsRedisToTheSharedServerAheadOfTheProperties() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withUserConfiguration(RedisServerTestConfiguration.class)
			// the connection details win over the properties, as with @ServiceConnection
			.withPropertyValues("spring.data.redis.host=unreachable.invalid", "spring.data.redis.port=1")
			.run((context) -> {
				RedisServer server = RedisServerInitializer.sharedServer();
				assertThat(context.getBean(DataRedisConnectionDetails.class))
					.isInstanceOf(RedisServerConnectionDetails.class);
				context.getBean(StringRedisTemplate.class).opsForValue().set("kit", "connected");
				assertThat(server.command("GET", "kit")).isEqualTo("connected");
				server.command("DEL", "kit");
			});
	}

}
