package io.redq.queue.sentinel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.resource.ClientResources;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisSentinel;
import io.redq.queue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Keeps running a queue's jobs, through {@code spring.data.redis.sentinel.*}, while the
 * Sentinels fail the master over to its replica: loses none of the jobs whose dispatch
 * the replica confirmed ({@code redq.durability.replicas=1}), nor, without replicas to
 * wait for, any whose dispatch returned once a Sentinel announced the new master, and
 * runs them without waiting for a frozen master's calls to time out.
 *
 * @author Redq team
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisSentinelFailoverIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@AutoClose
	private final RedisSentinel sentinel = RedisSentinel.start("--appendonly", "yes", "--appendfsync", "always");

	@Test
	void queueRunsEveryConfirmedJobAfterItsMasterFailedOver() {
		JobQueueContextRunner.on(this.sentinel)
			.withPropertyValues("redq.durability.replicas=1")
			.withUserConfiguration(SentinelJobs.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				List<String> before = dispatch(dispatcher, 10, Duration.ZERO);
				await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(before));
				// held in Redis across the failover: due a little after it starts
				List<String> confirmed = new ArrayList<>(dispatch(dispatcher, 20, Duration.ofSeconds(2)));
				// dispatched while the master fails over: each dispatch that returned
				// was confirmed by the replica, the one promoted
				Set<String> during = ConcurrentHashMap.newKeySet();
				AtomicBoolean failingOver = new AtomicBoolean(true);
				Thread producer = new Thread(() -> {
					while (failingOver.get()) {
						try {
							during.add(dispatcher.dispatch("sentinel-job", 0).id());
						}
						catch (RuntimeException ex) {
							// refused or unconfirmed while no master takes writes: the
							// caller may dispatch again
						}
					}
				});
				producer.start();
				await().atMost(DEADLINE).until(() -> !during.isEmpty());
				this.sentinel.failOver();
				List<String> after = new ArrayList<>();
				// the first dispatch after the failover may still meet the old master
				after.add(await().atMost(DEADLINE)
					.ignoreExceptions()
					.until(() -> dispatcher.dispatch("sentinel-job", 1).id(), Objects::nonNull));
				failingOver.set(false);
				producer.join(DEADLINE.toMillis());
				after.addAll(dispatch(dispatcher, 10, Duration.ZERO));
				confirmed.addAll(during);
				confirmed.addAll(after);
				await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(confirmed));
				assertThat(context).hasNotFailed();
			});
	}

	@Test
	void queueWritesToTheNewMasterOnceASentinelAnnouncedIt() {
		JobQueueContextRunner.on(this.sentinel).withUserConfiguration(SentinelJobs.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			LettuceConnectionFactory connectionFactory = context.getBean(LettuceConnectionFactory.class);
			List<String> before = dispatch(dispatcher, 10, Duration.ZERO);
			await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(before));
			RedisServer oldMaster = this.sentinel.master();
			// returns once every Sentinel has announced the switch; the old master is up
			// and still takes writes
			RedisServer newMaster = this.sentinel.failOver();
			await().atMost(DEADLINE).until(() -> serverPort(connectionFactory) == newMaster.port());
			// due after the old master's demotion below, so that none runs there first
			List<String> after = dispatch(dispatcher, 20, Duration.ofSeconds(3));
			// what the Sentinels do to the old master, up to 10 s later: it drops what it
			// took since the switch
			oldMaster.command("REPLICAOF", newMaster.host(), Integer.toString(newMaster.port()));
			oldMaster.command("CLIENT", "KILL", "TYPE", "normal");
			await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(after));
			assertThat(context).hasNotFailed();
		});
	}

	@Test
	void queueRunsJobsOnTheNewMasterWhileTheOldOneIsFrozen() {
		JobQueueContextRunner.on(this.sentinel).withUserConfiguration(SentinelJobs.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			List<String> before = dispatch(dispatcher, 10, Duration.ZERO);
			await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(before));
			RedisServer oldMaster = this.sentinel.master();
			// keeps its connections and answers nothing, as behind a partition: the
			// calls sent to it wait for Lettuce's command timeout of a minute
			oldMaster.pause();
			try {
				await().atMost(DEADLINE)
					.until(() -> this.sentinel.sentinels()
						.stream()
						.allMatch((each) -> this.sentinel.currentMaster(each) != oldMaster));
				List<String> after = new ArrayList<>();
				after.add(await().atMost(DEADLINE)
					.ignoreExceptions()
					.until(() -> dispatcher.dispatch("sentinel-job", 1).id(), Objects::nonNull));
				after.addAll(dispatch(dispatcher, 10, Duration.ZERO));
				await().atMost(DEADLINE).until(() -> SentinelJobs.handled.containsAll(after));
			}
			finally {
				oldMaster.resume();
			}
			assertThat(context).hasNotFailed();
		});
	}

	@Test
	void applicationsOwnClientResourcesAreLeftAloneWithAWarning(CapturedOutput output) {
		JobQueueContextRunner.on(this.sentinel)
			.withBean(ClientResources.class, ClientResources::create,
					(definition) -> definition.setDestroyMethodName("shutdown"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ClientResources.class).nettyCustomizer())
					.isNotSameAs(context.getBean("jobQueueRedisChannels"));
				assertThat(output).contains("after a Sentinel failover, the application's connections stay on the old "
						+ "master until the Sentinels demote it");
			});
	}

	/** The port of the server that the factory's shared connection is on now. */
	private static int serverPort(LettuceConnectionFactory connectionFactory) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			Properties server = connection.serverCommands().info("server");
			return Integer.parseInt(server.getProperty("tcp_port"));
		}
	}

	private static List<String> dispatch(JobDispatcher dispatcher, int count, Duration delay) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(dispatcher.dispatch(JobRequest.of("sentinel-job", i).delay(delay).build()).id());
		}
		return ids;
	}

	@Configuration(proxyBeanMethods = false)
	static class SentinelJobs {

		static final Set<String> handled = ConcurrentHashMap.newKeySet();

		@QueuedJob(name = "sentinel-job", queue = "sentinel")
		void handle(int i, JobContext context) {
			handled.add(context.getId());
		}

	}

}
