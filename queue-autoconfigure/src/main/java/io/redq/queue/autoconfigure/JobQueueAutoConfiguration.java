package io.redq.queue.autoconfigure;

import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.annotation.EnableJobQueue;
import io.redq.queue.annotation.JobListenerConfigurer;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.RedisJobDispatcher;
import io.redq.queue.core.RedisJobQueueOperations;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.script.RecurringScripts;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobProcessObservationConvention;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Auto-configuration for Redq: the queue scripts, operations, dispatcher, listener
 * container factory, the {@code @QueuedJob} annotation processing and the recurring job
 * scheduler, on the application's {@link RedisConnectionFactory}.
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
@SuppressWarnings("rawtypes")
public final class JobQueueAutoConfiguration {

	/** Bean name of the enqueue script. */
	public static final String ENQUEUE_SCRIPT = "jobQueueEnqueueScript";

	/** Bean name of the reserve script. */
	public static final String RESERVE_SCRIPT = "jobQueueReserveScript";

	/** Bean name of the ack script. */
	public static final String ACK_SCRIPT = "jobQueueAckScript";

	/** Bean name of the fail script. */
	public static final String FAIL_SCRIPT = "jobQueueFailScript";

	/** Bean name of the extend script. */
	public static final String EXTEND_SCRIPT = "jobQueueExtendScript";

	/** Bean name of the release script. */
	public static final String RELEASE_SCRIPT = "jobQueueReleaseScript";

	/** Bean name of the migrate script. */
	public static final String MIGRATE_SCRIPT = "jobQueueMigrateScript";

	/** Bean name of the cancel script. */
	public static final String CANCEL_SCRIPT = "jobQueueCancelScript";

	/** Bean name of the stats script. */
	public static final String STATS_SCRIPT = "jobQueueStatsScript";

	/** Bean name of the admit script. */
	public static final String ADMIT_SCRIPT = "jobQueueAdmitScript";

	/** Bean name of the hold script. */
	public static final String HOLD_SCRIPT = "jobQueueHoldScript";

	/** Bean name of the reschedule script. */
	public static final String RESCHEDULE_SCRIPT = "jobQueueRescheduleScript";

	/** Bean name of the status script. */
	public static final String STATUS_SCRIPT = "jobQueueStatusScript";

	/** Bean name of the dead script. */
	public static final String DEAD_SCRIPT = "jobQueueDeadScript";

	/** Bean name of the revive script. */
	public static final String REVIVE_SCRIPT = "jobQueueReviveScript";

	/** Bean name of the recurring tick script. */
	public static final String RECURRING_TICK_SCRIPT = "jobQueueRecurringTickScript";

	/** Bean name of the recurring pause script. */
	public static final String RECURRING_PAUSE_SCRIPT = "jobQueueRecurringPauseScript";

	// The scripts are no default candidates, so that an application's own RedisScript
	// injection still finds one bean.

	@Bean(name = ENQUEUE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = ENQUEUE_SCRIPT)
	RedisScript<List> jobQueueEnqueueScript() {
		return QueueScripts.load("enqueue", List.class);
	}

	@Bean(name = RESERVE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = RESERVE_SCRIPT)
	RedisScript<List> jobQueueReserveScript() {
		return QueueScripts.load("reserve", List.class);
	}

	@Bean(name = ACK_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = ACK_SCRIPT)
	RedisScript<List> jobQueueAckScript() {
		return QueueScripts.load("ack", List.class);
	}

	@Bean(name = FAIL_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = FAIL_SCRIPT)
	RedisScript<Long> jobQueueFailScript() {
		return QueueScripts.load("fail", Long.class);
	}

	@Bean(name = EXTEND_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = EXTEND_SCRIPT)
	RedisScript<List> jobQueueExtendScript() {
		return QueueScripts.load("extend", List.class);
	}

	@Bean(name = RELEASE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = RELEASE_SCRIPT)
	RedisScript<Long> jobQueueReleaseScript() {
		return QueueScripts.load("release", Long.class);
	}

	@Bean(name = MIGRATE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = MIGRATE_SCRIPT)
	RedisScript<List> jobQueueMigrateScript() {
		return QueueScripts.load("migrate", List.class);
	}

	@Bean(name = CANCEL_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = CANCEL_SCRIPT)
	RedisScript<Long> jobQueueCancelScript() {
		return QueueScripts.load("cancel", Long.class);
	}

	@Bean(name = STATS_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = STATS_SCRIPT)
	RedisScript<List> jobQueueStatsScript() {
		return QueueScripts.load("stats", List.class);
	}

	@Bean(name = ADMIT_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = ADMIT_SCRIPT)
	RedisScript<Long> jobQueueAdmitScript() {
		return QueueScripts.load("admit", Long.class);
	}

	@Bean(name = HOLD_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = HOLD_SCRIPT)
	RedisScript<Long> jobQueueHoldScript() {
		return QueueScripts.load("hold", Long.class);
	}

	@Bean(name = RESCHEDULE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = RESCHEDULE_SCRIPT)
	RedisScript<Long> jobQueueRescheduleScript() {
		return QueueScripts.load("reschedule", Long.class);
	}

	@Bean(name = STATUS_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = STATUS_SCRIPT)
	RedisScript<List> jobQueueStatusScript() {
		return QueueScripts.load("status", List.class);
	}

	@Bean(name = DEAD_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = DEAD_SCRIPT)
	RedisScript<List> jobQueueDeadScript() {
		return QueueScripts.load("dead", List.class);
	}

	@Bean(name = REVIVE_SCRIPT, defaultCandidate = false)
	@ConditionalOnMissingBean(name = REVIVE_SCRIPT)
	RedisScript<Long> jobQueueReviveScript() {
		return QueueScripts.load("revive", Long.class);
	}

	@Bean
	@ConditionalOnMissingBean
	RedisJobQueueOperations jobQueueOperations(RedisConnectionFactory connectionFactory, JobQueueProperties properties,
			@Qualifier(ENQUEUE_SCRIPT) RedisScript<List> enqueue, @Qualifier(RESERVE_SCRIPT) RedisScript<List> reserve,
			@Qualifier(ACK_SCRIPT) RedisScript<List> ack, @Qualifier(FAIL_SCRIPT) RedisScript<Long> fail,
			@Qualifier(EXTEND_SCRIPT) RedisScript<List> extend, @Qualifier(RELEASE_SCRIPT) RedisScript<Long> release,
			@Qualifier(MIGRATE_SCRIPT) RedisScript<List> migrate, @Qualifier(CANCEL_SCRIPT) RedisScript<Long> cancel,
			@Qualifier(STATS_SCRIPT) RedisScript<List> stats, @Qualifier(ADMIT_SCRIPT) RedisScript<Long> admit,
			@Qualifier(HOLD_SCRIPT) RedisScript<Long> hold, @Qualifier(RESCHEDULE_SCRIPT) RedisScript<Long> reschedule,
			@Qualifier(STATUS_SCRIPT) RedisScript<List> status, @Qualifier(DEAD_SCRIPT) RedisScript<List> dead,
			@Qualifier(REVIVE_SCRIPT) RedisScript<Long> revive) {
		QueueScripts scripts = new QueueScripts(enqueue, reserve, ack, fail, extend, release, migrate, cancel, stats,
				admit, hold, reschedule, status, dead, revive);
		RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, scripts,
				properties.getKeyPrefix());
		operations.setDeadLetterMaxSize(properties.getDeadLetter().getMaxSize());
		operations.setDeadLetterTimeToLive(properties.getDeadLetter().getTimeToLive());
		operations.setCompletedMaxSize(properties.getCompleted().getMaxSize());
		return operations;
	}

	@Bean
	@ConditionalOnMissingBean
	JobDefaults jobDefaults(JobQueueProperties properties) {
		JobQueueProperties.Job job = properties.getJob();
		JobQueueProperties.Backoff backoff = job.getBackoff();
		return new JobDefaults(job.getQueue(), job.getMaxAttempts(), job.getTimeout(), new JobBackoff(
				backoff.getDelay(), backoff.getMultiplier(), backoff.getMaxDelay(), backoff.getJitter()));
	}

	@Bean(name = JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
	JobListenerContainerFactory jobListenerContainerFactory(RedisJobQueueOperations operations,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<JobMetrics> metrics,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<JobProcessObservationConvention> observationConvention, JobQueueProperties properties) {
		JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
				jsonMapper.getIfAvailable(JsonMapper::shared));
		factory.setMetrics(metrics.getIfAvailable(() -> JobMetrics.NONE));
		factory.setObservationEnabled(properties.isObservationEnabled());
		observationRegistry.ifUnique(factory::setObservationRegistry);
		observationConvention.ifUnique(factory::setObservationConvention);
		JobQueueProperties.Listener listener = properties.getListener();
		ContainerProperties defaults = factory.getContainerProperties();
		defaults.setConcurrency(listener.getConcurrency());
		defaults.setBatchSize(listener.getBatchSize());
		defaults.setPrefetch(listener.getPrefetch());
		defaults.setPollTimeout(listener.getPollTimeout());
		defaults.setLeaseTime(listener.getLeaseTime());
		defaults.setShutdownTimeout(listener.getShutdownTimeout());
		defaults.setAutoStartup(listener.isAutoStartup());
		defaults.setVirtualThreads(listener.isVirtualThreads());
		properties.getQueues().forEach((queue, overrides) -> {
			ContainerProperties container = new ContainerProperties(defaults);
			PropertyMapper map = PropertyMapper.get();
			map.from(overrides.getConcurrency()).to(container::setConcurrency);
			map.from(overrides.getBatchSize()).to(container::setBatchSize);
			map.from(overrides.getPrefetch()).to(container::setPrefetch);
			map.from(overrides.getPollTimeout()).to(container::setPollTimeout);
			map.from(overrides.getLeaseTime()).to(container::setLeaseTime);
			map.from(overrides.getShutdownTimeout()).to(container::setShutdownTimeout);
			map.from(overrides.getAutoStartup()).to(container::setAutoStartup);
			map.from(overrides.getMaxRunning()).to(container::setMaxRunning);
			factory.setQueueProperties(queue, container);
		});
		return factory;
	}

	@Bean
	@ConditionalOnMissingBean(JobDispatcher.class)
	RedisJobDispatcher jobDispatcher(RedisJobQueueOperations operations, JobCatalog catalog,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<JobMetrics> metrics,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<JobDispatchObservationConvention> observationConvention, JobQueueProperties properties) {
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(operations, catalog,
				jsonMapper.getIfAvailable(JsonMapper::shared));
		dispatcher.setMaxPayloadSize(properties.getDispatcher().getMaxPayloadSize().toBytes());
		dispatcher.setMetrics(metrics.getIfAvailable(() -> JobMetrics.NONE));
		dispatcher.setObservationEnabled(properties.isObservationEnabled());
		observationRegistry.ifUnique(dispatcher::setObservationRegistry);
		observationConvention.ifUnique(dispatcher::setObservationConvention);
		return dispatcher;
	}

	@Bean
	JobListenerConfigurer jobQueueRemoteJobsConfigurer(JobQueueProperties properties, JobDefaults defaults) {
		return (registry) -> properties.getJobs().forEach((name, job) -> {
			// runs after every @QueuedJob method is registered, so that a clash
			// can name the property
			JobDefinition existing = registry.getJobCatalog().find(name);
			Assert.state(existing == null, () -> "redq.jobs." + name + " configures a job that another application "
					+ "handles, but this application already has a job named '" + name + "' (queue '" + existing.queue()
					+ "'), e.g. a @QueuedJob method. Job names must be unique: remove redq.jobs." + name
					+ " or rename one of the jobs");
			registry.getJobCatalog()
				.register(new JobDefinition(name, (job.getQueue() != null) ? job.getQueue() : defaults.queue(),
						(job.getMaxAttempts() != null) ? job.getMaxAttempts() : defaults.maxAttempts(),
						(job.getTimeout() != null) ? job.getTimeout() : defaults.timeout(), defaults.backoff(), null));
		});
	}

	@Bean
	static RedisEvictionPolicyCheck jobQueueRedisEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		return new RedisEvictionPolicyCheck(connectionFactory);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "redq.recurring.enabled", matchIfMissing = true)
	static class RecurringJobsConfiguration {

		@Bean(name = RECURRING_TICK_SCRIPT, defaultCandidate = false)
		@ConditionalOnMissingBean(name = RECURRING_TICK_SCRIPT)
		RedisScript<List> jobQueueRecurringTickScript() {
			return QueueScripts.load("recurring-tick", List.class);
		}

		@Bean(name = RECURRING_PAUSE_SCRIPT, defaultCandidate = false)
		@ConditionalOnMissingBean(name = RECURRING_PAUSE_SCRIPT)
		RedisScript<Long> jobQueueRecurringPauseScript() {
			return QueueScripts.load("recurring-pause", Long.class);
		}

		@Bean
		@ConditionalOnMissingBean
		RecurringJobScheduler recurringJobScheduler(RedisJobQueueOperations operations, JobDispatcher dispatcher,
				ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<JobMetrics> metrics,
				JobQueueProperties properties, @Qualifier(RECURRING_TICK_SCRIPT) RedisScript<List> tick,
				@Qualifier(RECURRING_PAUSE_SCRIPT) RedisScript<Long> pause) {
			RecurringJobScheduler scheduler = new RecurringJobScheduler(operations, new RecurringScripts(tick, pause),
					dispatcher, jsonMapper.getIfAvailable(JsonMapper::shared));
			scheduler.setMetrics(metrics.getIfAvailable(() -> JobMetrics.NONE));
			scheduler.setDefaultZone(properties.getRecurring().getZone());
			scheduler.setMaxLateness(properties.getRecurring().getMaxLateness());
			return scheduler;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	@ConditionalOnMissingBean(name = JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME)
	static class EnableJobQueueConfiguration {

	}

}
