package io.redq.queue.autoconfigure;

import java.time.Duration;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for the reconnect delay that Redq sets on the Lettuce client
 * resources of Spring Boot, from {@code redq.redis.reconnect-max-delay}.
 *
 * @author Redq team
 */
@WithRedis
class LettuceReconnectDelayIntegrationTests {

	/** An attempt late enough for Lettuce's default delay to have reached its 30 s. */
	private static final long LATE_ATTEMPT = 30;

	private final ApplicationContextRunner runner;

	LettuceReconnectDelayIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis);
	}

	@Test
	void reconnectDelayOfTheConnectionFactoryIsCappedAtOneSecond() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean("jobQueueReconnectDelayCustomizer");
			ClientResources resources = context.getBean(LettuceConnectionFactory.class)
				.getClientConfiguration()
				.getClientResources()
				.orElseThrow();
			assertThat(resources).isSameAs(context.getBean(ClientResources.class));
			Delay delay = resources.reconnectDelay();
			assertThat(delay.createDelay(1)).isLessThan(Duration.ofMillis(100));
			assertThat(delay.createDelay(LATE_ATTEMPT)).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void reconnectDelayIsCappedAtTheProperty() {
		this.runner.withPropertyValues("redq.redis.reconnect-max-delay=250ms")
			.run((context) -> assertThat(lateDelay(context)).isEqualTo(Duration.ofMillis(250)));
	}

	@Test
	void reconnectMaxDelayMustBePositive() {
		this.runner.withPropertyValues("redq.redis.reconnect-max-delay=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redq.redis.reconnect-max-delay must be positive"));
	}

	@Test
	void reconnectDelayOfAnApplicationCustomizerWins() {
		this.runner.withUserConfiguration(ReconnectDelayCustomizerConfiguration.class)
			.run((context) -> assertThat(lateDelay(context)).isEqualTo(Duration.ofSeconds(5)));
	}

	@Test
	void clientResourcesOfTheApplicationAreLeftAlone() {
		this.runner.withUserConfiguration(ClientResourcesConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(ClientResources.class)
				.hasBean("applicationClientResources");
			// Lettuce's default ceiling
			assertThat(lateDelay(context)).isEqualTo(Duration.ofSeconds(30));
		});
	}

	@Test
	void commandTimeoutOfAStandaloneRedisIsLeftAlone() {
		// Redq's failover defaults are for a Redis Cluster only
		this.runner.run((context) -> assertThat(
				context.getBean(LettuceConnectionFactory.class).getClientConfiguration().getCommandTimeout())
			.isEqualTo(Duration.ofSeconds(60)));
	}

	private static Duration lateDelay(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(ClientResources.class).reconnectDelay().createDelay(LATE_ATTEMPT);
	}

	@Configuration(proxyBeanMethods = false)
	static class ReconnectDelayCustomizerConfiguration {

		@Bean
		ClientResourcesBuilderCustomizer applicationReconnectDelay() {
			return (builder) -> builder.reconnectDelay(Delay.constant(Duration.ofSeconds(5)));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClientResourcesConfiguration {

		@Bean(destroyMethod = "shutdown")
		ClientResources applicationClientResources() {
			return ClientResources.create();
		}

	}

}
