package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.lock.LockHandle;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Integration tests for {@link RedisLockAutoConfiguration}, on a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class RedisLockAutoConfigurationIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private final ApplicationContextRunner runner;

	RedisLockAutoConfigurationIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis)
			.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class));
	}

	@Test
	void isListedAsAnAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(JobQueueAutoConfiguration.class.getName(), RedisLockAutoConfiguration.class.getName());
	}

	@Test
	void durabilityReplicasPropertyMakesLocksWaitForReplicas(RedisServer redis) {
		// this Redis has no replica: the lock is released again and its acquisition
		// throws
		this.runner.withPropertyValues("redq.durability.replicas=1", "redq.durability.replica-timeout=50ms")
			.run((context) -> {
				RedisLockService locks = context.getBean(RedisLockService.class);
				assertThatExceptionOfType(ReplicationTimeoutException.class)
					.isThrownBy(() -> locks.tryAcquire("report", Duration.ZERO))
					.withMessageContaining("only 0 of the 1 replicas required (redq.durability.replicas)");
				assertThat(redis.command("EXISTS", "redq:lock:{report}")).isEqualTo("0");
			});
	}

	@Test
	void lockServiceHasTheDefaultLeaseAndWatchdog(RedisServer redis) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLockService.class).hasBean("redisLockService");
			RedisLockService locks = context.getBean(RedisLockService.class);
			assertThat(locks.getLeaseTime()).isEqualTo(Duration.ofSeconds(30));
			assertThat(locks.isWatchdog()).isTrue();
			try (LockHandle lock = locks.tryAcquire("report", Duration.ZERO)) {
				assertThat(lock).isNotNull();
				assertThat(redis.command("GET", "redq:lock:{report}:fence")).isEqualTo("1");
			}
		});
	}

	@Test
	void lockPropertiesAndKeyPrefixConfigureTheLockService(RedisServer redis) {
		this.runner.withPropertyValues("redq.lock.lease-time=5s", "redq.lock.watchdog=false", "redq.key-prefix=shop")
			.run((context) -> {
				RedisLockService locks = context.getBean(RedisLockService.class);
				assertThat(locks.getLeaseTime()).isEqualTo(Duration.ofSeconds(5));
				assertThat(locks.isWatchdog()).isFalse();
				assertThat(locks.tryAcquire("report", Duration.ZERO)).isNotNull();
				assertThat(Long.parseLong(redis.command("PTTL", "shop:lock:{report}"))).isBetween(1L, 5000L);
			});
	}

	@Test
	void backsOffForAUserLockService() {
		this.runner.withUserConfiguration(UserLockServiceConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockService.class).doesNotHaveBean("redisLockService");
			assertThat(context.getBean(RedisLockService.class)).isSameAs(context.getBean("customLocks"));
		});
	}

	@Test
	void backsOffWhenRedqIsDisabled() {
		this.runner.withPropertyValues("redq.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisConnectionFactory.class);
			assertThat(context).doesNotHaveBean(RedisLockService.class).doesNotHaveBean(JobQueueProperties.class);
		});
	}

	@Test
	void worksWithoutTheJobQueue() {
		// without Jackson, the job queue backs off and the locks stay
		this.runner.withClassLoader(new FilteredClassLoader(JsonMapper.class)).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockService.class)
				.doesNotHaveBean(JobDispatcher.class);
			assertThat(context.getBean(RedisLockService.class).tryAcquire("report", Duration.ZERO)).isNotNull();
		});
	}

	@Test
	void backsOffWithoutRedis() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockService.class));
		this.runner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockService.class));
	}

	@Test
	void closingTheContextStopsTheWatchdogAndLeavesLocksToTheirLease(RedisServer redis) {
		this.runner.withPropertyValues("redq.lock.lease-time=200ms").run((context) -> {
			RedisLockService locks = context.getBean(RedisLockService.class);
			assertThat(locks.tryAcquire("nightly", Duration.ZERO)).isNotNull();
			context.close();
			await().atMost(DEADLINE).until(() -> redis.command("EXISTS", "redq:lock:{nightly}").equals("0"));
		});
	}

	@Test
	void sixteenThreadsInThreeApplicationsNeverHoldALockAtTheSameTime(RedisServer redis) {
		this.runner.run((one) -> this.runner.run((two) -> this.runner.run((three) -> {
			List<ConfigurableApplicationContext> applications = List.of(one, two, three);
			assertThat(applications.stream().map((context) -> context.getBean(RedisLockService.class)).distinct())
				.hasSize(3);
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger mostInside = new AtomicInteger();
			AtomicInteger sections = new AtomicInteger();
			List<Long> fencingTokens = Collections.synchronizedList(new ArrayList<>());
			redis.command("SET", "counter", "0");
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int thread = 0; thread < 16; thread++) {
					ConfigurableApplicationContext application = applications.get(thread % 3);
					RedisLockService locks = application.getBean(RedisLockService.class);
					StringRedisTemplate template = application.getBean(StringRedisTemplate.class);
					workers.add(threads.submit(() -> {
						for (int i = 0; i < 20; i++) {
							try (LockHandle lock = locks.tryAcquire("counter", DEADLINE)) {
								assertThat(lock).isNotNull();
								mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
								fencingTokens.add(lock.getFencingToken());
								// a lost update if two threads were in here at once
								String count = template.opsForValue().get("counter");
								Thread.sleep(1);
								template.opsForValue().set("counter", Integer.toString(Integer.parseInt(count) + 1));
								sections.incrementAndGet();
								inside.decrementAndGet();
							}
						}
						return null;
					}));
				}
				for (Future<?> worker : workers) {
					worker.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(mostInside).hasValue(1);
			assertThat(sections).hasValue(320);
			assertThat(redis.command("GET", "counter")).isEqualTo("320");
			assertThat(fencingTokens).hasSize(320).isSorted().doesNotHaveDuplicates();
		})));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserLockServiceConfiguration {

		@Bean
		RedisLockService customLocks(RedisConnectionFactory connectionFactory) {
			return new RedisLockService(connectionFactory, new Keyspace("custom"));
		}

	}

}
