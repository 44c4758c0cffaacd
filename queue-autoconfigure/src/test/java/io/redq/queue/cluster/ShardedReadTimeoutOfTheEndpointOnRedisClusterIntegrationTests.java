package io.redq.queue.cluster;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueueDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ShardDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueEndpoint;
import io.redq.queue.autoconfigure.endpoint.JobQueueEndpointAutoConfiguration;
import io.redq.queue.autoconfigure.endpoint.RedisUnavailableException;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests that the {@code redq} endpoint's changes of a job by its id in a sharded queue
 * answer within {@code redq.dispatcher.timeout}, as a 503, while the master of one shard
 * does not answer (frozen with {@code SIGSTOP}), instead of waiting for the Redis command
 * timeout (one minute here), on a three-master Redis Cluster started by the test.
 *
 * @author Redq team
 */
class ShardedReadTimeoutOfTheEndpointOnRedisClusterIntegrationTests {

	/** Well below the Redis command timeout, well above the dispatcher's timeout. */
	private static final Duration FAST = Duration.ofSeconds(20);

	@AutoClose
	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		// no master is taken for failed while a test holds it stopped
		cluster = RedisCluster.start(3, 0, "--cluster-node-timeout", "300000");
	}

	@AfterEach
	void resume() {
		cluster.masters().forEach(RedisServer::resume);
		cluster.masters().forEach(RedisServer::flushAll);
	}

	@Test
	void triggeringAJobWhileAShardDoesNotAnswerIsA503WithinTheTimeout() {
		runWithTheLastShardStopped((endpoint) -> assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> endpoint.retryOrTrigger("mail", "jobs", new String[] { "absent" }, null))
			.withMessageContaining(
					"Redis did not answer within 500 ms when asked to move job 'absent' of queue 'mail'"));
	}

	@Test
	void cancellingAJobWhileAShardDoesNotAnswerIsA503WithinTheTimeout() {
		runWithTheLastShardStopped((endpoint) -> assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> endpoint.deleteOrCancel("mail", "jobs", "absent"))
			.withMessageContaining(
					"Redis did not answer within 500 ms when asked to cancel job 'absent' of queue 'mail'"));
	}

	@Test
	void changingEveryShardOfAQueueWhileAShardDoesNotAnswerIsA503WithinTheTimeout() {
		runWithTheLastShardStopped((endpoint) -> {
			assertShardUnavailable(() -> endpoint.pause("mail", true), "pause");
			assertShardUnavailable(() -> endpoint.purge("mail", "mail"), "purge");
			assertShardUnavailable(() -> endpoint.retryOrTrigger("mail", "dead", new String[] { "absent" }, null),
					"retry dead jobs of");
			assertShardUnavailable(() -> endpoint.deleteOrCancel("mail", "dead", "absent"), "delete dead jobs of");
		});
	}

	private static void assertShardUnavailable(ThrowingCallable call, String asked) {
		assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(call)
			.withMessageContaining("Redis did not answer within 500 ms when asked to " + asked + " shards [")
			.withMessageContaining("] of queue 'mail'");
	}

	private void runWithTheLastShardStopped(Consumer<JobQueueEndpoint> call) {
		runner().run((context) -> {
			JobQueueEndpoint endpoint = context.getBean(JobQueueEndpoint.class);
			QueueDescriptor queue = (QueueDescriptor) endpoint.queue("mail", null, null, true);
			assertThat(queue).isNotNull();
			List<ShardDescriptor> shards = queue.shards();
			assertThat(shards).hasSize(3).extracting(ShardDescriptor::master).doesNotHaveDuplicates();
			cluster.masterOf(shards.get(2).hashTag()).pause();
			assertTimeoutPreemptively(FAST, () -> call.accept(endpoint));
		});
	}

	private static ApplicationContextRunner runner() {
		return JobQueueContextRunner.on(cluster)
			.withConfiguration(AutoConfigurations.of(JobQueueEndpointAutoConfiguration.class))
			.withUserConfiguration(MailJobs.class)
			.withPropertyValues("management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false",
					"redq.queues.mail.shards=3", "spring.data.redis.timeout=60s", "redq.dispatcher.timeout=500ms");
	}

	@Configuration(proxyBeanMethods = false)
	static class MailJobs {

		@QueuedJob(name = "send-mail", queue = "mail")
		void send(String to) {
		}

	}

}
