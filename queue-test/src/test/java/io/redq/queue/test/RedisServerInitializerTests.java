package io.redq.queue.test;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisServerInitializer}.
 *
 * @author Redq team
 */
class RedisServerInitializerTests {

	@Test
	void addsHostAndPortWithHighestPrecedence() {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("earlier", Map.of("spring.data.redis.port", "1")));
			new RedisServerInitializer().initialize(context);
			context.refresh();
			RedisServer server = RedisServerInitializer.sharedServer();
			assertThat(context.getEnvironment().getProperty("spring.data.redis.host")).isEqualTo(server.host());
			assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class))
				.isEqualTo(server.port());
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void sharesOneServer() {
		assertThat(RedisServerInitializer.sharedServer()).isSameAs(RedisServerInitializer.sharedServer());
	}

}
