package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.QueuedJobAnnotationBeanPostProcessor;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDeadException;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.core.Timer;
import io.redq.queue.listener.DefaultJobErrorHandler;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.redis.JobResults;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Integration tests for {@link JobQueueAutoConfiguration}, on a real Redis.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(OutputCaptureExtension.class)
class JobQueueAutoConfigurationIntegrationTests {

	private static final List<String> SCRIPT_BEAN_NAMES = List.of("jobQueueEnqueueScript", "jobQueuePushScript",
			"jobQueueReserveScript", "jobQueueAckScript", "jobQueueFailScript", "jobQueueExtendScript",
			"jobQueueReleaseScript", "jobQueueMigrateScript", "jobQueueCancelScript", "jobQueueStatsScript",
			"jobQueueAdmitScript", "jobQueueHoldScript", "jobQueueRescheduleScript", "jobQueueStatusScript",
			"jobQueueDeadScript", "jobQueueReviveScript", "jobQueueModelScript", "jobQueuePurgeScript",
			"jobQueueResultScript", "jobQueueProgressScript", "jobQueueRecurringTickScript",
			"jobQueueRecurringPauseScript");

	private final ApplicationContextRunner runner;

	JobQueueAutoConfigurationIntegrationTests(RedisServer redis) {
		this.runner = JobQueueContextRunner.on(redis);
	}

	@Test
	void defaultContextHasEveryRedqBean() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisJobDispatcher.class)
				.hasSingleBean(TransactionAwareJobDispatcher.class)
				.hasSingleBean(JobQueueOperations.class)
				.hasSingleBean(JobListenerContainerFactory.class)
				.hasSingleBean(JobDefaults.class)
				.hasSingleBean(JobListenerRegistry.class)
				.hasSingleBean(JobCatalog.class)
				.hasSingleBean(RecurringJobScheduler.class)
				.hasSingleBean(JobResults.class)
				.hasBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
				.hasBean(JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME)
				.hasBean(JobQueueConfigUtils.JOB_CATALOG_BEAN_NAME);
			assertThat(context.getBean(JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME))
				.isInstanceOf(QueuedJobAnnotationBeanPostProcessor.class);
			assertThat(context.getBeansOfType(RedisScript.class)).containsOnlyKeys(SCRIPT_BEAN_NAMES);
		});
	}

	@Test
	void closingTheContextSendsThePendingAsyncDispatchesBeforeTheRedisConnectionsClose(RedisServer redis) {
		this.runner.withPropertyValues("redq.remote-jobs.remote.queue=elsewhere").run((context) -> {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			// Redis holds the first call, so that the others are still pending at close
			redis.command("CLIENT", "PAUSE", "500", "WRITE");
			List<CompletableFuture<DispatchResult>> futures = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				futures.add(dispatcher.dispatchAsync("remote", i));
			}
			context.close();
			assertThat(futures).allSatisfy((future) -> assertThat(future).isCompleted());
			assertThat(redis.command("LLEN", "redq:{elsewhere}:ready")).isEqualTo("100");
		});
	}

	@Test
	void injectedDispatcherFollowsTransactionsUnlessTurnedOff() {
		this.runner.run((context) -> {
			TransactionAwareJobDispatcher dispatcher = context.getBean(TransactionAwareJobDispatcher.class);
			assertThat(context.getBean(JobDispatcher.class)).isSameAs(dispatcher);
			assertThat(dispatcher.getTargetDispatcher()).isSameAs(context.getBean(RedisJobDispatcher.class));
			assertThat(context.getBean(RecurringJobScheduler.class)).isNotNull();
		});
		this.runner.withPropertyValues("redq.dispatcher.transaction-aware=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TransactionAwareJobDispatcher.class)
				.getBean(JobDispatcher.class)
				.isInstanceOf(RedisJobDispatcher.class));
	}

	@Test
	void defaultJobDefaultsAreTheLibraryDefaults() {
		this.runner.run((context) -> assertThat(context.getBean(JobDefaults.class)).isEqualTo(JobDefaults.STANDARD));
	}

	@Test
	void disabledByProperty() {
		this.runner.withPropertyValues("redq.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisConnectionFactory.class);
			assertNoRedqBeans(context);
		});
	}

	@Test
	void backsOffWithoutRedisConnectionFactoryBean() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, JobQueueAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class);
				assertNoRedqBeans(context);
			});
	}

	@Test
	void backsOffWithoutSpringDataRedisOnTheClasspath() {
		this.runner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertNoRedqBeans(context);
		});
	}

	@Test
	void backsOffForUserJobDispatcher() {
		this.runner.withUserConfiguration(UserDispatcherConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(JobDispatcher.class)
				.doesNotHaveBean(RedisJobDispatcher.class)
				.doesNotHaveBean("jobDispatcher")
				// ticks become jobs through the RedisJobDispatcher
				.doesNotHaveBean(RecurringJobScheduler.class);
			assertThat(context.getBean(JobDispatcher.class)).isSameAs(context.getBean("customDispatcher"));
		});
	}

	@Test
	void backsOffForUserJobQueueOperations(RedisServer redis) {
		this.runner.withUserConfiguration(UserOperationsConfiguration.class)
			.withPropertyValues("redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				assertThat(context).hasSingleBean(JobQueueOperations.class);
				assertThat(context.getBean(JobQueueOperations.class)).isSameAs(context.getBean("customOperations"));
				// the dispatcher works on the user's operations, with their key prefix
				context.getBean(JobDispatcher.class).dispatch("remote-job", "payload");
				assertThat(redis.command("LLEN", "custom:{other}:ready")).isEqualTo("1");
			});
	}

	@Test
	void backsOffForUserContainerFactoryNamedJobListenerContainerFactory() {
		this.runner.withUserConfiguration(UserContainerFactoryConfiguration.class)
			.withPropertyValues("redq.listener.concurrency=3")
			.run((context) -> {
				assertThat(context).hasSingleBean(JobListenerContainerFactory.class);
				JobListenerContainerFactory factory = context.getBean(
						JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
						JobListenerContainerFactory.class);
				assertThat(factory.getContainerProperties().getConcurrency()).isEqualTo(42);
			});
	}

	@Test
	void keepsJobListenerContainerFactoryWhenUserFactoryHasAnotherName() {
		this.runner.withUserConfiguration(OtherContainerFactoryConfiguration.class).run((context) -> {
			assertThat(context).getBeans(JobListenerContainerFactory.class)
				.containsOnlyKeys("otherFactory", JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME);
		});
	}

	@Test
	void userScriptBeanReplacesOursByName(RedisServer redis) {
		this.runner.withUserConfiguration(UserEnqueueScriptConfiguration.class)
			.withPropertyValues("redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("jobQueueEnqueueScript")).isSameAs(UserEnqueueScriptConfiguration.SCRIPT);
				assertThat(context.getBeansOfType(RedisScript.class)).containsOnlyKeys(SCRIPT_BEAN_NAMES);
				// under an id of its own: a job under a generated id goes to the push
				// script
				context.getBean(JobDispatcher.class).dispatch(JobRequest.of("remote-job", "payload").id("r").build());
				assertThat(redis.command("GET", "custom-enqueue")).isEqualTo("called");
				assertThat(redis.command("LLEN", "redq:{other}:ready")).isEqualTo("0");
			});
	}

	@Test
	void userScriptBeansStayInjectableByType() {
		this.runner.withUserConfiguration(UserScriptsConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			UserScriptClient client = context.getBean(UserScriptClient.class);
			assertThat(client.check).isSameAs(context.getBean("checkScript"));
			assertThat(client.count).isSameAs(context.getBean("countScript"));
		});
	}

	@Test
	void recurringScriptBeansComeOnlyWithRecurringJobs() {
		this.runner.withPropertyValues("redq.recurring.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RecurringJobScheduler.class);
			assertThat(context.getBeansOfType(RedisScript.class)).containsOnlyKeys(
					SCRIPT_BEAN_NAMES.stream().filter((name) -> !name.startsWith("jobQueueRecurring")).toList());
		});
	}

	@Test
	void jobsRunOnPlatformThreadsByDefault() {
		this.runner.withUserConfiguration(ThreadJobsConfiguration.class)
			.withPropertyValues("redq.queues.threads.concurrency=1")
			.run((context) -> {
				JobListenerContainerFactory factory = context.getBean(JobListenerContainerFactory.class);
				assertThat(factory.getContainerProperties().isVirtualThreads()).isFalse();
				assertThat(factory.createContainer("threads", List.of()).getContainerProperties().isVirtualThreads())
					.isFalse();
				assertThat(isVirtual(jobThread(context))).isFalse();
			});
	}

	@Test
	void jobsRunOnVirtualThreadsWhenSpringBootsVirtualThreadsAreEnabled() {
		this.runner.withUserConfiguration(ThreadJobsConfiguration.class)
			.withPropertyValues("spring.threads.virtual.enabled=true", "redq.queues.threads.concurrency=1")
			.run((context) -> {
				// like Spring Boot, only where the runtime has them
				boolean virtual = Runtime.version().feature() >= 21;
				JobListenerContainerFactory factory = context.getBean(JobListenerContainerFactory.class);
				assertThat(factory.getContainerProperties().isVirtualThreads()).isEqualTo(virtual);
				assertThat(factory.createContainer("threads", List.of()).getContainerProperties().isVirtualThreads())
					.isEqualTo(virtual);
				assertThat(isVirtual(jobThread(context))).isEqualTo(virtual);
			});
	}

	@Test
	void listenerPropertiesBindToTheContainerFactory() {
		this.runner.withPropertyValues("redq.listener.concurrency=3", "redq.queues.mail.concurrency=1")
			.run((context) -> {
				JobListenerContainerFactory factory = context.getBean(JobListenerContainerFactory.class);
				assertThat(factory.createContainer("mail", List.of()).getContainerProperties().getConcurrency())
					.isEqualTo(1);
				assertThat(factory.createContainer("other", List.of()).getContainerProperties().getConcurrency())
					.isEqualTo(3);
			});
	}

	@Test
	void shardsApplyToEveryQueueUnlessAQueueSetsItsOwn() {
		this.runner.withPropertyValues("redq.listener.shards=2", "redq.queues.mail.shards=3").run((context) -> {
			QueueStore store = context.getBean(RedisJobQueueOperations.class).getStore();
			assertThat(store.getShards("mail")).isEqualTo(3);
			assertThat(store.getShards("other")).isEqualTo(2);
		});
	}

	@Test
	void queuePropertiesOverrideOnlyWhatTheySet() {
		this.runner
			.withPropertyValues("redq.listener.batch-size=7", "redq.listener.lease-time=2m",
					"redq.queues.mail.lease-time=90s", "redq.queues.mail.auto-startup=false")
			.run((context) -> {
				JobListenerContainerFactory factory = context.getBean(JobListenerContainerFactory.class);
				JobListenerContainer mail = factory.createContainer("mail", List.of());
				assertThat(mail.getContainerProperties().getBatchSize()).isEqualTo(7);
				assertThat(mail.getContainerProperties().getLeaseTime()).isEqualTo(Duration.ofSeconds(90));
				assertThat(mail.isAutoStartup()).isFalse();
				JobListenerContainer other = factory.createContainer("other", List.of());
				assertThat(other.getContainerProperties().getLeaseTime()).isEqualTo(Duration.ofMinutes(2));
				assertThat(other.isAutoStartup()).isTrue();
			});
	}

	@Test
	void keyPrefixPropertyPrefixesEveryKey(RedisServer redis) {
		this.runner.withPropertyValues("redq.key-prefix=myapp", "redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				String id = context.getBean(JobDispatcher.class).dispatch("remote-job", "payload").id();
				assertThat(redis.command("LRANGE", "myapp:{other}:ready", "0", "-1")).isEqualTo(id);
				assertThat(redis.command("EXISTS", "redq:{other}:ready")).isEqualTo("0");
			});
	}

	@Test
	void jobMaxAttemptsPropertyBecomesTheDefault(RedisServer redis) {
		this.runner.withPropertyValues("redq.job.max-attempts=6", "redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				assertThat(context.getBean(JobDefaults.class).maxAttempts()).isEqualTo(6);
				String id = context.getBean(JobDispatcher.class).dispatch("remote-job", "payload").id();
				assertThat(redis.command("HGET", "redq:{other}:jobs", id)).contains("\"maxAttempts\":6");
			});
	}

	@Test
	void deadLetterMaxSizePropertyBoundsDeadJobs(RedisServer redis) {
		this.runner.withPropertyValues("redq.dead-letter.max-size=1", "redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				dispatcher.dispatch("remote-job", "first");
				dispatcher.dispatch("remote-job", "second");
				ListenerOperations operations = context.getBean(RedisJobQueueOperations.class).getListenerOperations();
				List<ReservedJob> jobs = operations.reserve("other", 2, Duration.ofMinutes(1)).jobs();
				assertThat(jobs).hasSize(2);
				for (ReservedJob job : jobs) {
					assertThat(operations.getLeaseOperations().fail("other", job.lease(), "boom", null)).isTrue();
				}
				assertThat(redis.command("ZCARD", "redq:{other}:dead")).isEqualTo("1");
			});
	}

	@Test
	void durabilityReplicasPropertyMakesDispatchesWaitForReplicas(RedisServer redis) {
		// this Redis has no replica: the dispatch waits out the timeout, says so, and the
		// job stays on the master
		this.runner
			.withPropertyValues("redq.durability.replicas=1", "redq.durability.replica-timeout=50ms",
					"redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				assertThatExceptionOfType(ReplicationTimeoutException.class)
					.isThrownBy(() -> dispatcher.dispatch(JobRequest.of("remote-job", "payload").id("r-1").build()))
					.withMessageContaining("only 0 of the 1 replicas required (redq.durability.replicas)");
				assertThat(redis.command("LRANGE", "redq:{other}:ready", "0", "-1")).isEqualTo("r-1");
			});
	}

	@Test
	void maxPayloadSizePropertyLimitsDispatches(RedisServer redis) {
		this.runner
			.withPropertyValues("redq.dispatcher.max-payload-size=10KB", "redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				assertThatIllegalArgumentException()
					.isThrownBy(() -> dispatcher.dispatch("remote-job", "x".repeat(11 * 1024)))
					.withMessageContaining("more than the limit of 10240 bytes");
				assertThat(redis.command("EXISTS", "redq:{other}:ready")).isEqualTo("0");
				dispatcher.dispatch("remote-job", "x".repeat(9 * 1024));
				assertThat(redis.command("LLEN", "redq:{other}:ready")).isEqualTo("1");
			});
	}

	@Test
	void resendWindowPropertySetsHowLongRedisRemembersADispatch(RedisServer redis) {
		this.runner
			.withPropertyValues("redq.dispatcher.resend-window=10s", "spring.data.redis.timeout=5s",
					"redq.remote-jobs.remote-job.queue=other")
			.run((context) -> {
				context.getBean(JobDispatcher.class).dispatch("remote-job", "x");
				String sent = redis.command("KEYS", "redq:{other}:sent:*");
				assertThat(Long.parseLong(redis.command("PTTL", sent))).isBetween(1L, 10_000L);
			});
	}

	@Test
	void timeoutPropertySetsTheLongestWaitOfADispatch() {
		this.runner.run((context) -> assertThat(context.getBean(RedisJobDispatcher.class))
			.hasFieldOrPropertyWithValue("timeout", RedisJobDispatcher.DEFAULT_TIMEOUT));
		this.runner.withPropertyValues("redq.dispatcher.timeout=1500ms")
			.run((context) -> assertThat(context.getBean(RedisJobDispatcher.class))
				.hasFieldOrPropertyWithValue("timeout", Duration.ofMillis(1500)));
	}

	@Test
	void batchesLingerPropertySetsHowLongAnEndedBatchIsKept() {
		this.runner.run((context) -> assertThat(context.getBean(RedisJobDispatcher.class).getWorkflowDispatcher())
			.hasFieldOrPropertyWithValue("batchLinger", RedisJobDispatcher.DEFAULT_BATCH_LINGER));
		this.runner.withPropertyValues("redq.batches.linger=2h")
			.run((context) -> assertThat(context.getBean(RedisJobDispatcher.class).getWorkflowDispatcher())
				.hasFieldOrPropertyWithValue("batchLinger", Duration.ofHours(2)));
	}

	@Test
	void aResendWindowNoLongerThanTheRedisCommandTimeoutIsRefusedWithWhatToDo() {
		this.runner.withPropertyValues("redq.dispatcher.resend-window=5s", "spring.data.redis.timeout=5s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redq.dispatcher.resend-window (5000 ms) must be longer than the Redis command "
						+ "timeout (spring.data.redis.timeout, 5000 ms)")
				.hasMessageEndingWith("Raise redq.dispatcher.resend-window or lower spring.data.redis.timeout"));
	}

	@Test
	void queuedJobBeanGetsARunningContainerForItsQueue() {
		this.runner.withUserConfiguration(MailJobsConfiguration.class).run((context) -> {
			JobListenerRegistry registry = context.getBean(JobListenerRegistry.class);
			JobListenerContainer container = registry.getListenerContainer("mail");
			assertThat(container).isNotNull();
			assertThat(container.isRunning()).isTrue();
			assertThat(container.getJobNames()).containsExactly("send-mail");
			context.getBean(JobDispatcher.class).dispatch("send-mail", "ada@example.com");
			MailJobs jobs = context.getBean(MailJobs.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> jobs.sent, (sent) -> sent.contains("ada@example.com"));
		});
	}

	@Test
	void resultsPropertiesBoundTheResultsThatJobResultsWaitsFor(RedisServer redis) {
		this.runner.withUserConfiguration(EchoJobsConfiguration.class)
			.withPropertyValues("redq.results.max-size=1KB", "redq.results.time-to-live=10m")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				JobResults results = context.getBean(JobResults.class);
				String small = dispatcher.dispatch("echo", "small").id();
				assertThat(results.await("echoes", small, String.class, Duration.ofMinutes(1)))
					.succeedsWithin(Duration.ofSeconds(30))
					.isEqualTo("small");
				assertThat(Long.parseLong(redis.command("PTTL", "redq:{echoes}:result:" + small))).isBetween(1L,
						Duration.ofMinutes(10).toMillis());
				String large = dispatcher.dispatch("echo", "x".repeat(1100)).id();
				assertThat(results.await("echoes", large, String.class, Duration.ofMinutes(1)))
					.failsWithin(Duration.ofSeconds(30))
					.withThrowableThat()
					.havingCause()
					.isInstanceOf(JobDeadException.class)
					.withMessageContaining("is 1102 bytes of JSON, over the limit of 1024 (redq.results.max-size)");
			});
	}

	@Test
	void remoteJobPropertySendsDispatchesToItsQueue(RedisServer redis) {
		this.runner.withPropertyValues("redq.remote-jobs.remote-job.queue=other").run((context) -> {
			String id = context.getBean(JobDispatcher.class).dispatch("remote-job", "payload").id();
			assertThat(redis.command("LRANGE", "redq:{other}:ready", "0", "-1")).isEqualTo(id);
			assertThat(redis.command("EXISTS", "redq:{default}:ready")).isEqualTo("0");
		});
	}

	@Test
	void deprecatedRemoteJobPropertyStillSendsDispatchesToItsQueue(RedisServer redis) {
		this.runner.withPropertyValues("redq.jobs.remote-job.queue=other", "redq.remote-jobs.new-job.queue=new")
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				String old = dispatcher.dispatch("remote-job", "payload").id();
				String renamed = dispatcher.dispatch("new-job", "payload").id();
				assertThat(redis.command("LRANGE", "redq:{other}:ready", "0", "-1")).isEqualTo(old);
				assertThat(redis.command("LRANGE", "redq:{new}:ready", "0", "-1")).isEqualTo(renamed);
			});
	}

	@Test
	void aRemoteJobUnderTheOldAndTheNewNameFailsStartupNamingTheOldOne() {
		this.runner.withPropertyValues("redq.jobs.remote-job.queue=other", "redq.remote-jobs.remote-job.queue=other")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("redq.jobs.remote-job configures a job that another application handles, but "
						+ "this application already has a job named 'remote-job' (queue 'other')"));
	}

	@Test
	void remoteJobNamedLikeAQueuedJobFailsStartup() {
		this.runner.withUserConfiguration(MailJobsConfiguration.class)
			.withPropertyValues("redq.remote-jobs.send-mail.queue=other")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessage("redq.remote-jobs.send-mail configures a job that another application handles, but this "
						+ "application already has a job named 'send-mail' (queue 'mail'), e.g. a @QueuedJob method or an "
						+ "entry of redq.remote-jobs. "
						+ "Job names must be unique: remove redq.remote-jobs.send-mail or rename one of the jobs"));
	}

	@Test
	void keyPrefixWithABraceFailsStartup() {
		this.runner.withPropertyValues("redq.key-prefix=app{1}")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("Invalid key prefix 'app{1}': it contains '{'"));
	}

	@Test
	void warnsWhenRedisMayEvictJobs(RedisServer redis, CapturedOutput output) {
		redis.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		try {
			this.runner.run((context) -> assertThat(context).hasNotFailed());
			assertThat(output).contains("WARN").contains("maxmemory-policy is 'allkeys-lru'").contains("'noeviction'");
		}
		finally {
			redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
		}
	}

	@Test
	void doesNotWarnWhenRedisDoesNotEvict(RedisServer redis, CapturedOutput output) {
		assertThat(redis.command("CONFIG", "GET", "maxmemory-policy")).isEqualTo("maxmemory-policy\nnoeviction");
		this.runner.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("maxmemory-policy");
	}

	private static Thread jobThread(AssertableApplicationContext context) {
		context.getBean(JobDispatcher.class).dispatch("record-thread", "payload");
		ThreadJobs jobs = context.getBean(ThreadJobs.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> !jobs.threads.isEmpty());
		return jobs.threads.get(0);
	}

	private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
		// Thread.isVirtual() is Java 21 API; below it, every thread is a platform thread
		return Runtime.version().feature() >= 21 && (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
	}

	private static void assertNoRedqBeans(AssertableApplicationContext context) {
		assertThat(context).doesNotHaveBean(JobDispatcher.class)
			.doesNotHaveBean(JobQueueOperations.class)
			.doesNotHaveBean(JobListenerContainerFactory.class)
			.doesNotHaveBean(JobDefaults.class)
			.doesNotHaveBean(JobListenerRegistry.class)
			.doesNotHaveBean(JobCatalog.class)
			.doesNotHaveBean(JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME)
			.doesNotHaveBean(JobQueueProperties.class)
			.doesNotHaveBean(RecurringJobScheduler.class)
			.doesNotHaveBean(RedisEvictionPolicyCheck.class);
		assertThat(context.getBeansOfType(RedisScript.class)).isEmpty();
	}

	@Test
	void aSingleErrorHandlerBeanDecidesForEveryJobThatNamesNone() {
		this.runner.withUserConfiguration(FailingJobsConfiguration.class, NeverRetryConfiguration.class)
			.run((context) -> {
				FailingJobs jobs = context.getBean(FailingJobs.class);
				String id = context.getBean(JobDispatcher.class).dispatch("fail-always", "x").id();
				JobQueueOperations operations = context.getBean(JobQueueOperations.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> operations.stats("failing").dead() == 1);
				assertThat(jobs.attempts).as("never retried, although maxAttempts is 3").containsExactly(id);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> context.getBean(NeverRetryConfiguration.class).recovered.contains(id));
			});
	}

	@Test
	void anErrorHandlerBeanThatIsNoDefaultCandidateIsLeftToTheJobsThatNameIt() {
		this.runner.withUserConfiguration(FailingJobsConfiguration.class, NamedOnlyErrorHandlerConfiguration.class)
			.run((context) -> {
				FailingJobs jobs = context.getBean(FailingJobs.class);
				String id = context.getBean(JobDispatcher.class).dispatch("fail-always", "x").id();
				JobQueueOperations operations = context.getBean(JobQueueOperations.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> operations.stats("failing").dead() == 1);
				assertThat(jobs.attempts).as("retried with the job's own backoff").containsExactly(id, id, id);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserDispatcherConfiguration {

		@Bean
		JobDispatcher customDispatcher() {
			return new JobDispatcher() {

				@Override
				public List<DispatchResult> dispatchAll(Collection<JobRequest> requests) {
					return List.of();
				}

				@Override
				public CompletableFuture<DispatchResult> dispatchAsync(JobRequest request) {
					return CompletableFuture.completedFuture(new DispatchResult("", DispatchResult.Outcome.CREATED));
				}

				@Override
				public boolean cancel(String queue, String id) {
					return false;
				}

				@Override
				public DispatchResult schedule(String jobName, Object key, Instant at) {
					return new DispatchResult("", DispatchResult.Outcome.CREATED);
				}

				@Override
				public boolean reschedule(String jobName, Object key, Instant at) {
					return false;
				}

				@Override
				public boolean cancelTimer(String jobName, Object key) {
					return false;
				}

				@Override
				public Optional<Timer> findTimer(String jobName, Object key) {
					return Optional.empty();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserOperationsConfiguration {

		@Bean
		RedisJobQueueOperations customOperations(RedisConnectionFactory connectionFactory) {
			return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("custom"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserContainerFactoryConfiguration {

		@Bean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
		JobListenerContainerFactory userFactory(RedisJobQueueOperations operations) {
			JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
					JsonMapper.shared());
			factory.getContainerProperties().setConcurrency(42);
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherContainerFactoryConfiguration {

		@Bean
		JobListenerContainerFactory otherFactory(RedisJobQueueOperations operations) {
			return new JobListenerContainerFactory(operations.getListenerOperations(), JsonMapper.shared());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@SuppressWarnings("rawtypes")
	static class UserEnqueueScriptConfiguration {

		static final RedisScript<List> SCRIPT = RedisScript.of(
				"redis.call('SET', 'custom-enqueue', 'called') "
						+ "local result = {} for i = 1, tonumber(ARGV[1]) do result[i] = 1 end return result",
				List.class);

		@Bean("jobQueueEnqueueScript")
		RedisScript<List> customEnqueueScript() {
			return SCRIPT;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserScriptsConfiguration {

		@Bean
		RedisScript<Boolean> checkScript() {
			return RedisScript.of("return 1", Boolean.class);
		}

		@Bean
		RedisScript<Long> countScript() {
			return RedisScript.of("return 1", Long.class);
		}

		@Bean
		UserScriptClient userScriptClient(RedisScript<Boolean> check, RedisScript<Long> count) {
			return new UserScriptClient(check, count);
		}

	}

	static class UserScriptClient {

		final RedisScript<Boolean> check;

		final RedisScript<Long> count;

		UserScriptClient(RedisScript<Boolean> check, RedisScript<Long> count) {
			this.check = check;
			this.count = count;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ThreadJobsConfiguration {

		@Bean
		ThreadJobs threadJobs() {
			return new ThreadJobs();
		}

	}

	static class ThreadJobs {

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		@QueuedJob(queue = "threads")
		void recordThread(String payload) {
			this.threads.add(Thread.currentThread());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MailJobsConfiguration {

		@Bean
		MailJobs mailJobs() {
			return new MailJobs();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EchoJobsConfiguration {

		@Bean
		EchoJobs echoJobs() {
			return new EchoJobs();
		}

	}

	static class EchoJobs {

		@QueuedJob(name = "echo", queue = "echoes")
		String echo(String text) {
			return text;
		}

	}

	static class MailJobs {

		final List<String> sent = new CopyOnWriteArrayList<>();

		@QueuedJob(queue = "mail")
		void sendMail(String to) {
			this.sent.add(to);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingJobsConfiguration {

		@Bean
		FailingJobs failingJobs() {
			return new FailingJobs();
		}

	}

	static class FailingJobs {

		final List<String> attempts = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "fail-always", queue = "failing", maxAttempts = 3, backoff = @Backoff(delay = "10ms"))
		void failAlways(String payload, JobContext context) {
			this.attempts.add(context.getId());
			throw new IllegalStateException("always");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NeverRetryConfiguration {

		final List<String> recovered = new CopyOnWriteArrayList<>();

		@Bean
		JobErrorHandler noRetryForIllegalState() {
			DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(
					(job, exception) -> this.recovered.add(job.getId()));
			errorHandler.addNotRetryableExceptions(IllegalStateException.class);
			return errorHandler;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NamedOnlyErrorHandlerConfiguration {

		@Bean(defaultCandidate = false)
		JobErrorHandler neverRetry() {
			return (job, definition, exception) -> null;
		}

	}

}
