package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for {@link JobListenerContainerFactoryConfigurer}: a second factory
 * that an application builds with it gets the settings of the auto-configured one.
 *
 * @author Redq team
 */
@WithRedis
class JobListenerContainerFactoryConfigurerIntegrationTests {

	private final ApplicationContextRunner runner;

	JobListenerContainerFactoryConfigurerIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis);
	}

	@Test
	void withoutPropertiesTheFactoryKeepsTheLibraryDefaults() {
		this.runner.run((context) -> {
			JobListenerContainerFactory factory = configuredFactory(context);
			assertThat(factory.getContainerProperties()).usingRecursiveComparison()
				.isEqualTo(new ContainerProperties());
		});
	}

	@Test
	void listenerPropertiesBecomeTheSharedSettings() {
		this.runner
			.withPropertyValues("redq.listener.concurrency=3", "redq.listener.batch-size=7", "redq.listener.prefetch=0",
					"redq.listener.poll-timeout=2s", "redq.listener.lease-time=1m", "redq.listener.max-stalls=3",
					"redq.listener.shutdown-timeout=4s", "redq.listener.auto-startup=false",
					"redq.listener.max-running=4")
			.run((context) -> {
				JobListenerContainerFactory factory = configuredFactory(context);
				ContainerProperties properties = factory.getContainerProperties();
				assertThat(properties.getConcurrency()).isEqualTo(3);
				assertThat(properties.getBatchSize()).isEqualTo(7);
				assertThat(properties.getPrefetch()).isZero();
				assertThat(properties.getPollTimeout()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofMinutes(1));
				assertThat(properties.getMaxStalls()).isEqualTo(3);
				assertThat(properties.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(4));
				assertThat(properties.isAutoStartup()).isFalse();
				assertThat(properties.getMaxRunning()).isEqualTo(4);
				assertThat(factory.createContainer("other", List.of()).getContainerProperties())
					.usingRecursiveComparison()
					.isEqualTo(properties);
				assertThat(context.getBean(JobListenerContainerFactory.class).getContainerProperties())
					.usingRecursiveComparison()
					.isEqualTo(properties);
			});
	}

	@Test
	void queuePropertiesOverrideTheSharedSettingsForTheirQueueOnly() {
		this.runner
			.withPropertyValues("redq.listener.concurrency=3", "redq.listener.batch-size=7",
					"redq.queues.mail.concurrency=1", "redq.queues.mail.prefetch=5", "redq.queues.mail.poll-timeout=3s",
					"redq.queues.mail.lease-time=90s", "redq.queues.mail.shutdown-timeout=6s",
					"redq.queues.mail.auto-startup=false", "redq.queues.mail.max-running=2",
					"redq.queues.mail.max-stalls=0")
			.run((context) -> {
				JobListenerContainerFactory factory = configuredFactory(context);
				ContainerProperties mail = factory.createContainer("mail", List.of()).getContainerProperties();
				assertThat(mail.getConcurrency()).isEqualTo(1);
				assertThat(mail.getBatchSize()).isEqualTo(7);
				assertThat(mail.getPrefetch()).isEqualTo(5);
				assertThat(mail.getPollTimeout()).isEqualTo(Duration.ofSeconds(3));
				assertThat(mail.getLeaseTime()).isEqualTo(Duration.ofSeconds(90));
				assertThat(mail.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(6));
				assertThat(mail.isAutoStartup()).isFalse();
				assertThat(mail.getMaxRunning()).isEqualTo(2);
				assertThat(mail.getMaxStalls()).isZero();
				ContainerProperties other = factory.createContainer("other", List.of()).getContainerProperties();
				assertThat(other.getConcurrency()).isEqualTo(3);
				assertThat(other.getPrefetch()).isEqualTo(new ContainerProperties().getPrefetch());
				assertThat(other.isAutoStartup()).isTrue();
				assertThat(other.getMaxRunning()).isZero();
				assertThat(other.getMaxStalls()).isEqualTo(new ContainerProperties().getMaxStalls());
			});
	}

	@Test
	void settingsMadeAfterConfigureOverrideTheProperties() {
		this.runner.withPropertyValues("redq.listener.concurrency=3").run((context) -> {
			JobListenerContainerFactory factory = configuredFactory(context);
			factory.getContainerProperties().setConcurrency(5);
			assertThat(factory.createContainer("other", List.of()).getContainerProperties().getConcurrency())
				.isEqualTo(5);
			assertThat(context.getBean(JobListenerContainerFactory.class).getContainerProperties().getConcurrency())
				.isEqualTo(3);
		});
	}

	private static JobListenerContainerFactory configuredFactory(AssertableApplicationContext context) {
		JobListenerContainerFactory factory = new JobListenerContainerFactory(
				context.getBean(RedisJobQueueOperations.class).getListenerOperations(), JsonMapper.shared());
		context.getBean(JobListenerContainerFactoryConfigurer.class).configure(factory);
		return factory;
	}

}
