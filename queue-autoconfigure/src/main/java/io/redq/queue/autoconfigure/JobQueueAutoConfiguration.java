package io.redq.queue.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.annotation.EnableJobQueue;
import io.redq.queue.annotation.JobListenerConfigurer;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.inspect.InstanceHeartbeat;
import io.redq.queue.inspect.InstanceRegistry;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobInterceptor;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.redis.JobResults;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.script.RecurringScripts;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import io.redq.queue.transaction.JobOutbox;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Auto-configuration for Redq: the queue scripts, operations, dispatcher, listener
 * container factory and the {@code @QueuedJob} annotation processing, on the
 * application's {@link RedisConnectionFactory}; the recurring job scheduler comes with
 * {@link RecurringJobsAutoConfiguration}.
 *
 * <p>
 * Each Lua script is a {@link RedisScript} bean named {@code jobQueue<Name>Script}, e.g.
 * {@code jobQueueEnqueueScript} or {@code jobQueueRecurringTickScript} (see
 * {@link QueueScripts} and {@link RecurringScripts} for the names); an application bean
 * of the same name replaces ours. The script beans are no default candidates, so that an
 * application's own {@code RedisScript} injected by type is not disturbed.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass({ RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "redq.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@EnableConfigurationProperties(JobQueueProperties.class)
@Import({ ScriptBeanRegistrar.QueueScriptBeans.class, KeyspaceConfiguration.class })
public final class JobQueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisJobQueueOperations jobQueueOperations(RedisConnectionFactory connectionFactory, JobQueueProperties properties,
			Keyspace keyspace, BeanFactory beanFactory, ObjectProvider<JobMetrics> metrics) {
		QueueScripts scripts = QueueScripts.from(ScriptBeanRegistrar.scriptBeans(beanFactory));
		RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, scripts, keyspace);
		operations.setMetrics(metrics.getIfAvailable(() -> JobMetrics.NONE));
		operations.setDeadLetterMaxSize(properties.getDeadLetter().getMaxSize());
		operations.setDeadLetterTimeToLive(properties.getDeadLetter().getTimeToLive());
		operations.setCompletedMaxSize(properties.getCompleted().getMaxSize());
		operations.setTimeout(properties.getDispatcher().getTimeout());
		DataSize resultMaxSize = properties.getResults().getMaxSize();
		Assert.isTrue(resultMaxSize.toBytes() > 0 && resultMaxSize.toBytes() <= Integer.MAX_VALUE,
				() -> "redq.results.max-size must be between 1B and 2GB, not " + resultMaxSize);
		operations.getListenerOperations().getProgressOperations().setResultMaxSize((int) resultMaxSize.toBytes());
		operations.getListenerOperations()
			.getProgressOperations()
			.setResultTimeToLive(properties.getResults().getTimeToLive());
		operations.getListenerOperations()
			.getProgressOperations()
			.setProgressInterval(properties.getProgress().getInterval());
		operations.getListenerOperations()
			.getProgressOperations()
			.setProgressTimeToLive(properties.getProgress().getTimeToLive());
		operations.setReplicasToWaitFor(properties.getDurability().getReplicas(),
				properties.getDurability().getReplicaTimeout());
		Integer shards = properties.getListener().getShards();
		operations.getStore().setDefaultShards((shards != null) ? shards : 1);
		properties.getQueues().forEach((queue, overrides) -> {
			if (overrides.getShards() != null) {
				operations.getStore().setShards(queue, overrides.getShards());
			}
		});
		return operations;
	}

	/**
	 * Waits for the results of jobs, on one subscription connection for the application,
	 * opened at the first wait.
	 */
	@Bean
	@ConditionalOnMissingBean
	JobResults jobResults(RedisJobQueueOperations operations) {
		return new JobResults(operations.getStore());
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueueInspector jobQueueInspector(RedisJobQueueOperations operations, JobCatalog catalog,
			JobQueueProperties properties, ObjectProvider<RecurringJobs> recurringJobs,
			ObjectProvider<InstanceRegistry> instances) {
		JobQueueInspector inspector = new JobQueueInspector(operations, catalog);
		inspector.setReadTimeout(properties.getInspection().getTimeout());
		recurringJobs.ifUnique(inspector::setRecurringJobs);
		instances.ifUnique(inspector::setInstances);
		return inspector;
	}

	@Bean
	@ConditionalOnMissingBean
	InstanceRegistry jobQueueInstanceRegistry(RedisJobQueueOperations operations) {
		return new InstanceRegistry(operations);
	}

	/**
	 * Lists this instance, with the queues it consumes, in the registry that the
	 * dashboard and the endpoint read: one script call every 10 seconds.
	 */
	@Bean
	@ConditionalOnMissingBean
	InstanceHeartbeat jobQueueInstanceHeartbeat(InstanceRegistry instances, JobListenerRegistry listeners,
			Environment environment) {
		return new InstanceHeartbeat(instances, listeners,
				environment.getProperty("spring.application.name", "application"));
	}

	@Bean
	@ConditionalOnMissingBean
	JobDefaults jobDefaults(JobQueueProperties properties) {
		JobQueueProperties.Job job = properties.getJob();
		JobQueueProperties.Backoff backoff = job.getBackoff();
		return new JobDefaults(job.getQueue(), job.getMaxAttempts(), job.getTimeout(), new JobBackoff(
				backoff.getDelay(), backoff.getMultiplier(), backoff.getMaxDelay(), backoff.getJitter()));
	}

	@Bean
	@ConditionalOnMissingBean
	JobListenerContainerFactoryConfigurer jobListenerContainerFactoryConfigurer(JobQueueProperties properties,
			ObjectProvider<JobMetrics> metrics, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<JobProcessObservationConvention> observationConvention,
			ObjectProvider<JobErrorHandler> errorHandler, ObjectProvider<JobInterceptor> interceptors,
			Environment environment) {
		JobListenerContainerFactoryConfigurer configurer = new JobListenerContainerFactoryConfigurer(properties);
		configurer.setMetrics(metrics.getIfAvailable());
		configurer.setObservationRegistry(observationRegistry.getIfUnique());
		configurer.setObservationConvention(observationConvention.getIfUnique());
		configurer.setErrorHandler(errorHandler.getIfUnique());
		configurer.setInterceptors(interceptors.orderedStream().toList());
		configurer.setVirtualThreads(Threading.VIRTUAL.isActive(environment));
		return configurer;
	}

	@Bean(name = JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
	JobListenerContainerFactory jobListenerContainerFactory(JobListenerContainerFactoryConfigurer configurer,
			RedisJobQueueOperations operations, ObjectProvider<JsonMapper> jsonMapper) {
		JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
				jsonMapper.getIfAvailable(JsonMapper::shared));
		configurer.configure(factory);
		return factory;
	}

	/**
	 * Check the re-send window against the Redis command timeout: Lettuce re-sends a
	 * dispatch until it times out, and a re-sent dispatch that Redis no longer remembers
	 * runs its jobs again.
	 */
	private static Duration resendWindow(Duration resendWindow, RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			Duration timeout = lettuce.getClientConfiguration().getCommandTimeout();
			if (resendWindow.compareTo(timeout) <= 0) {
				// Spring Boot reports it as a bad value of the property
				throw new InvalidConfigurationPropertyValueException("redq.dispatcher.resend-window",
						resendWindow.toMillis() + "ms",
						"redq.dispatcher.resend-window (" + resendWindow.toMillis()
								+ " ms) must be longer than the Redis command timeout (spring.data.redis.timeout, "
								+ timeout.toMillis()
								+ " ms): Lettuce re-sends a dispatch after a reconnect until it times out, and a "
								+ "dispatch Redis no longer remembers would run its jobs again. Raise "
								+ "redq.dispatcher.resend-window or lower spring.data.redis.timeout");
			}
		}
		return resendWindow;
	}

	@Bean
	@ConditionalOnMissingBean(JobDispatcher.class)
	RedisJobDispatcher jobDispatcher(RedisConnectionFactory connectionFactory, RedisJobQueueOperations operations,
			JobCatalog catalog, ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<JobDispatchObservationConvention> observationConvention,
			ObjectProvider<DispatchInterceptor> interceptors, JobQueueProperties properties) {
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(operations, catalog,
				jsonMapper.getIfAvailable(JsonMapper::shared));
		dispatcher.setMaxPayloadSize(properties.getDispatcher().getMaxPayloadSize().toBytes());
		dispatcher.setResendWindow(resendWindow(properties.getDispatcher().getResendWindow(), connectionFactory));
		dispatcher.setTimeout(properties.getDispatcher().getTimeout());
		JobQueueProperties.Coalescing coalescing = properties.getDispatcher().getCoalescing();
		dispatcher.setCoalescing(coalescing.isEnabled());
		dispatcher.setCoalescingMaxJobs(coalescing.getMaxJobs());
		dispatcher.setCoalescingMaxSize(coalescing.getMaxSize().toBytes());
		dispatcher.setCoalescingMaxInFlight(coalescing.getMaxInFlight());
		dispatcher.setBatchLinger(properties.getBatches().getLinger());
		dispatcher.setObservationEnabled(properties.isObservationEnabled());
		observationRegistry.ifUnique(dispatcher::setObservationRegistry);
		observationConvention.ifUnique(dispatcher::setObservationConvention);
		dispatcher.setInterceptors(interceptors.orderedStream().toList());
		return dispatcher;
	}

	/**
	 * The dispatcher that applications inject: jobs dispatched inside a transaction are
	 * sent after it commits, or written to a {@link JobOutbox} bean in it; the
	 * {@link RedisJobDispatcher} it wraps stays injectable by its class, for dispatches
	 * that ignore transactions.
	 */
	@Bean
	@Primary
	@ConditionalOnBean(RedisJobDispatcher.class)
	@ConditionalOnClass(TransactionSynchronizationManager.class)
	@ConditionalOnBooleanProperty(name = "redq.dispatcher.transaction-aware", matchIfMissing = true)
	TransactionAwareJobDispatcher transactionAwareJobDispatcher(RedisJobDispatcher jobDispatcher,
			ObjectProvider<JobOutbox> outbox) {
		TransactionAwareJobDispatcher dispatcher = new TransactionAwareJobDispatcher(jobDispatcher);
		outbox.ifUnique(dispatcher::setOutbox);
		return dispatcher;
	}

	@Bean
	@SuppressWarnings("removal")
	JobListenerConfigurer jobQueueRemoteJobsConfigurer(JobQueueProperties properties, JobDefaults defaults) {
		// runs after every @QueuedJob method is registered, so that a clash can name the
		// property
		return (registry) -> {
			properties.getRemoteJobs()
				.forEach((name, job) -> registerRemoteJob(registry, "redq.remote-jobs", name, job, defaults));
			properties.getJobs().forEach((name, job) -> registerRemoteJob(registry, "redq.jobs", name, job, defaults));
		};
	}

	private static void registerRemoteJob(JobListenerRegistry registry, String property, String name,
			JobQueueProperties.RemoteJob job, JobDefaults defaults) {
		JobDefinition existing = registry.getJobCatalog().find(name);
		Assert.state(existing == null, () -> property + "." + name + " configures a job that another application "
				+ "handles, but this application already has a job named '" + name + "' (queue '" + existing.queue()
				+ "'), e.g. a @QueuedJob method or an entry of redq.remote-jobs. Job names must be unique: remove "
				+ property + "." + name + " or rename one of the jobs");
		registry.getJobCatalog()
			.register(new JobDefinition(name, (job.getQueue() != null) ? job.getQueue() : defaults.queue(),
					(job.getMaxAttempts() != null) ? job.getMaxAttempts() : defaults.maxAttempts(),
					(job.getTimeout() != null) ? job.getTimeout() : defaults.timeout(), defaults.backoff(), null));
	}

	@Bean
	static RedisEvictionPolicyCheck jobQueueRedisEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		return new RedisEvictionPolicyCheck(connectionFactory);
	}

	@Bean
	static UnknownPropertiesCheck jobQueueUnknownPropertiesCheck(ApplicationContext context) {
		return new UnknownPropertiesCheck(context);
	}

	/**
	 * Caps Lettuce's reconnect delay, which otherwise doubles up to 30 s, so that workers
	 * resume soon after a long Redis outage. Spring Boot applies it to the client
	 * resources it creates, not to an application's own {@link ClientResources} bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientResources.class, ClientResourcesBuilderCustomizer.class })
	static class LettuceReconnectConfiguration {

		// first of the customizers, so that an application's own reconnect delay wins
		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer jobQueueReconnectDelayCustomizer(JobQueueProperties properties) {
			Duration maxDelay = properties.getRedis().getReconnectMaxDelay();
			Assert.isTrue(!maxDelay.isNegative() && !maxDelay.isZero(),
					"redq.redis.reconnect-max-delay must be positive");
			// Lettuce's default delay (1, 2, 4, ... ms), with a lower ceiling
			return (builder) -> builder
				.reconnectDelay(Delay.exponential(Duration.ZERO, maxDelay, 2, TimeUnit.MILLISECONDS));
		}

	}

	/**
	 * Lets a queue resume within seconds after its Redis Cluster master fails over, where
	 * Lettuce's defaults stall it for the 60 s command timeout: a command timeout of
	 * {@value #CLUSTER_COMMAND_TIMEOUT_SECONDS} s, so that commands stuck on the lost
	 * master fail and are tried again, and a topology refresh every
	 * {@value #CLUSTER_REFRESH_PERIOD_SECONDS} s and on every adaptive trigger, so that
	 * Lettuce learns the new master. Each applies only where the application did not set
	 * {@code spring.data.redis.timeout} or
	 * {@code spring.data.redis.lettuce.cluster.refresh.period}; applied first, so that an
	 * application's own customizers win.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClusterClientOptions.class, LettuceClientOptionsBuilderCustomizer.class })
	@ConditionalOnBooleanProperty(name = "redq.redis.cluster-failover-defaults", matchIfMissing = true)
	static class LettuceClusterFailoverConfiguration {

		static final long CLUSTER_COMMAND_TIMEOUT_SECONDS = 5;

		static final long CLUSTER_REFRESH_PERIOD_SECONDS = 2;

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		LettuceClientConfigurationBuilderCustomizer jobQueueClusterTimeoutCustomizer(
				ObjectProvider<DataRedisProperties> redisProperties) {
			return (builder) -> {
				DataRedisProperties properties = redisProperties.getIfAvailable();
				if (properties != null && properties.getCluster() != null && properties.getTimeout() == null) {
					builder.commandTimeout(Duration.ofSeconds(CLUSTER_COMMAND_TIMEOUT_SECONDS));
				}
			};
		}

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		LettuceClientOptionsBuilderCustomizer jobQueueClusterRefreshCustomizer(
				ObjectProvider<DataRedisProperties> redisProperties) {
			return (builder) -> {
				DataRedisProperties properties = redisProperties.getIfAvailable();
				if (builder instanceof ClusterClientOptions.Builder cluster && properties != null
						&& properties.getLettuce().getCluster().getRefresh().getPeriod() == null) {
					cluster.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
						.dynamicRefreshSources(
								properties.getLettuce().getCluster().getRefresh().isDynamicRefreshSources())
						.enablePeriodicRefresh(Duration.ofSeconds(CLUSTER_REFRESH_PERIOD_SECONDS))
						.enableAllAdaptiveRefreshTriggers()
						// Lettuce allows one adaptive refresh in 5 s; a MOVED reply
						// or reconnects to the lost master get theirs sooner
						.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
						.build());
				}
			};
		}

	}

	/**
	 * Moves the application's Lettuce connections to a new master as soon as a Sentinel
	 * announces it, so that the old master acknowledges no write that its demotion would
	 * lose. Spring Boot applies the channel tracking to the client resources it creates,
	 * not to an application's own {@link ClientResources} bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisClient.class, ClientResourcesBuilderCustomizer.class })
	@ConditionalOnProperty(name = "spring.data.redis.sentinel.master")
	static class LettuceSentinelFailoverConfiguration {

		@Bean
		static SentinelMasterSwitchListener.Channels jobQueueRedisChannels() {
			return new SentinelMasterSwitchListener.Channels();
		}

		// first of the customizers, so that an application's own NettyCustomizer wins
		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer jobQueueRedisChannelsCustomizer(
				SentinelMasterSwitchListener.Channels channels) {
			return (builder) -> builder.nettyCustomizer(channels);
		}

		@Bean
		@ConditionalOnBean(LettuceConnectionFactory.class)
		SentinelMasterSwitchListener jobQueueSentinelMasterSwitchListener(LettuceConnectionFactory connectionFactory,
				SentinelMasterSwitchListener.Channels channels) {
			return new SentinelMasterSwitchListener(connectionFactory, channels);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	@ConditionalOnMissingBean(name = JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME)
	static class EnableJobQueueConfiguration {

	}

}
