package io.redq.queue.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.autoconfigure.endpoint.JobQueueEndpoint;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueueDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ShardDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueEndpointAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs queues on a three-node Redis Cluster started by the test on 127.0.0.1.
 *
 * @author Redq team
 */
class RedisClusterIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	@AutoClose
	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@AfterEach
	void flush() {
		// a queue's shards and jobs of one test must not meet another test's containers
		cluster.masters().forEach(RedisServer::flushAll);
	}

	@Test
	void queuesOnDifferentSlotsRunTheirJobs() {
		JobQueueContextRunner.on(cluster).withUserConfiguration(ClusterJobs.class).run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 30; i++) {
				ids.add(dispatcher
					.dispatch(JobRequest.of("cluster-job-" + (i % 3), i).delay(Duration.ofMillis(i % 2 * 100)).build())
					.id());
			}
			await().atMost(DEADLINE).until(() -> ClusterJobs.handled.size() == ids.size());
			assertThat(ClusterJobs.handled).containsExactlyInAnyOrderElementsOf(ids);
			JobQueueOperations operations = context.getBean(JobQueueOperations.class);
			for (int q = 0; q < 3; q++) {
				String queue = "q" + q;
				await().atMost(DEADLINE).until(() -> operations.stats(queue).equals(new QueueStats(0, 0, 0, 0)));
			}
		});
	}

	@Test
	void theEndpointShowsWhereEachShardOfAQueueLives() {
		JobQueueContextRunner.on(cluster)
			.withConfiguration(AutoConfigurations.of(JobQueueEndpointAutoConfiguration.class))
			.withUserConfiguration(ClusterJobs.class)
			.withPropertyValues("management.endpoints.web.exposure.include=redq", "redq.listener.auto-startup=false",
					"redq.queues.q0.shards=3")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				for (int i = 0; i < 6; i++) {
					dispatcher.dispatch("cluster-job-0", i);
				}
				QueueDescriptor queue = (QueueDescriptor) context.getBean(JobQueueEndpoint.class)
					.queue("q0", null, null, true);
				assertThat(queue).isNotNull();
				assertThat(queue.shards()).hasSize(3);
				assertThat(queue.shards()).extracting(ShardDescriptor::hashTag).startsWith("{q0}");
				for (ShardDescriptor shard : queue.shards()) {
					RedisServer master = cluster.masterOf(shard.hashTag());
					assertThat(shard.slot()).as(shard.hashTag())
						.isEqualTo(Integer.valueOf(master.command("CLUSTER", "KEYSLOT", shard.hashTag())));
					assertThat(shard.master()).as(shard.hashTag()).isEqualTo(master.host() + ":" + master.port());
				}
				// three masters: the placement puts each shard on its own
				assertThat(queue.shards()).extracting(ShardDescriptor::master).doesNotHaveDuplicates();
				assertThat(queue.shards().stream().mapToLong(ShardDescriptor::ready).sum()).isEqualTo(6);
			});
	}

	@Test
	void failoverDefaultsApplyWhenTheApplicationSetsNoTimeoutOrRefreshPeriod() {
		JobQueueContextRunner.on(cluster).run((context) -> {
			LettuceClientConfiguration configuration = clientConfiguration(context);
			assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(5));
			ClusterTopologyRefreshOptions refresh = refreshOptions(configuration);
			assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
			assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(2));
			assertThat(refresh.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(RefreshTrigger.values());
			assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(1));
			assertThat(refresh.useDynamicRefreshSources()).isTrue();
		});
	}

	@Test
	void timeoutAndRefreshPeriodOfTheApplicationWin() {
		JobQueueContextRunner.on(cluster)
			.withPropertyValues("spring.data.redis.timeout=7s", "spring.data.redis.lettuce.cluster.refresh.period=3s")
			.run((context) -> {
				LettuceClientConfiguration configuration = clientConfiguration(context);
				assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(7));
				ClusterTopologyRefreshOptions refresh = refreshOptions(configuration);
				assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(3));
				assertThat(refresh.getAdaptiveRefreshTimeout())
					.isEqualTo(ClusterTopologyRefreshOptions.DEFAULT_ADAPTIVE_REFRESH_TIMEOUT_DURATION);
			});
	}

	@Test
	void dynamicRefreshSourcesOfTheApplicationAreKept() {
		JobQueueContextRunner.on(cluster)
			.withPropertyValues("spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false")
			.run((context) -> {
				ClusterTopologyRefreshOptions refresh = refreshOptions(clientConfiguration(context));
				assertThat(refresh.useDynamicRefreshSources()).isFalse();
				assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(2));
			});
	}

	@Test
	void failoverDefaultsCanBeSwitchedOff() {
		JobQueueContextRunner.on(cluster)
			.withPropertyValues("redq.redis.cluster-failover-defaults=false")
			.run((context) -> {
				LettuceClientConfiguration configuration = clientConfiguration(context);
				assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(60));
				assertThat(refreshOptions(configuration).isPeriodicRefreshEnabled()).isFalse();
			});
	}

	private static LettuceClientConfiguration clientConfiguration(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(LettuceConnectionFactory.class).getClientConfiguration();
	}

	private static ClusterTopologyRefreshOptions refreshOptions(LettuceClientConfiguration configuration) {
		return ((ClusterClientOptions) configuration.getClientOptions().orElseThrow()).getTopologyRefreshOptions();
	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterJobs {

		static final ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();

		@QueuedJob(name = "cluster-job-0", queue = "q0")
		void q0(int i, JobContext context) {
			handled.add(context.getId());
		}

		@QueuedJob(name = "cluster-job-1", queue = "q1")
		void q1(int i, JobContext context) {
			handled.add(context.getId());
		}

		@QueuedJob(name = "cluster-job-2", queue = "q2")
		void q2(int i, JobContext context) {
			handled.add(context.getId());
		}

	}

}
