package io.redq.queue.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A plain Spring application, without Spring Boot, with {@link EnableJobQueue} and the
 * beans its Javadoc lists, runs a {@link QueuedJob} method dispatched through the
 * {@link JobDispatcher}, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class EnableJobQueueIntegrationTests {

	private final RedisServer redis;

	EnableJobQueueIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void queuedJobRunsInAPlainSpringApplication() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(RedisServer.class, () -> this.redis);
			context.register(JobQueueConfiguration.class, Greetings.class);
			context.refresh();
			context.getBean(JobDispatcher.class).dispatch("greet", "Ada");
			Greetings greetings = context.getBean(Greetings.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> greetings.greeted, (greeted) -> greeted.contains("Ada"));
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> operations.stats("plain"), (stats) -> stats.equals(new QueueStats(0, 0, 0, 0)));
			assertThat(greetings.greeted).containsExactly("Ada");
		}
	}

	/**
	 * The beans the Javadoc of {@link EnableJobQueue} lists.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(RedisServer redis) {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
		}

		@Bean
		RedisJobQueueOperations jobQueueOperations(RedisConnectionFactory connectionFactory) {
			return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
		}

		@Bean
		RedisJobDispatcher jobDispatcher(RedisJobQueueOperations operations, JobCatalog jobCatalog) {
			return new RedisJobDispatcher(operations, jobCatalog, JsonMapper.shared());
		}

		@Bean
		JobListenerContainerFactory jobListenerContainerFactory(RedisJobQueueOperations operations) {
			return new JobListenerContainerFactory(operations.getListenerOperations(), JsonMapper.shared());
		}

	}

	static class Greetings {

		final List<String> greeted = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "greet", queue = "plain")
		void greet(String name) {
			this.greeted.add(name);
		}

	}

}
