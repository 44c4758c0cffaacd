package io.redq.queue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobLimits;
import io.redq.queue.core.RateLimit;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobHandler;
import io.redq.queue.listener.adapter.MethodDeadJobCallback;
import io.redq.queue.listener.adapter.MethodJobHandler;
import io.redq.queue.recurring.RecurringJobDefinition;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.recurring.RecurringSchedule;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Finds {@link QueuedJob} methods on beans, registers a handler for each with the
 * {@link JobListenerRegistry}, and, once all singletons exist, has the registry create
 * one listener container per queue. Registered by {@link EnableJobQueue}.
 *
 * <p>
 * A {@link Recurring} schedule on such a method is registered with the
 * {@link RecurringJobScheduler} bean; without one, the job runs only when dispatched.
 *
 * <p>
 * {@link DeadJobHandler} methods are registered with the registry once every job is
 * known, before the containers are created.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class QueuedJobAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, Ordered {

	private static final Log logger = LogFactory.getLog(QueuedJobAnnotationBeanPostProcessor.class);

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable JobListenerRegistry registry;

	/** The dead-job handler methods found, registered once every job is known. */
	private final List<Runnable> deadJobHandlers = new CopyOnWriteArrayList<>();

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		Assert.isInstanceOf(ConfigurableListableBeanFactory.class, beanFactory);
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.nonAnnotatedClasses.contains(targetClass)) {
			return bean;
		}
		Map<Method, DeadJobHandler> deadJobMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DeadJobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DeadJobHandler.class));
		deadJobMethods.forEach((method, annotation) -> this.deadJobHandlers.add(() -> registerDeadJobHandler(bean,
				beanName, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
		Map<Method, QueuedJob> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<QueuedJob>) (method) -> {
					QueuedJob annotation = AnnotatedElementUtils.findMergedAnnotation(method, QueuedJob.class);
					if (annotation == null && AnnotatedElementUtils.hasAnnotation(method, Recurring.class)) {
						throw new BeanInitializationException("Could not schedule @Recurring method " + method.getName()
								+ " of bean '" + beanName + "': it must also be annotated @QueuedJob");
					}
					return annotation;
				});
		if (methods.isEmpty()) {
			if (deadJobMethods.isEmpty()) {
				this.nonAnnotatedClasses.add(targetClass);
			}
			return bean;
		}
		JsonMapper jsonMapper = this.beanFactory.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::shared);
		methods.forEach((method, annotation) -> {
			Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
			try {
				JobDefinition definition = definition(method, annotation);
				MethodJobHandler handler = new MethodJobHandler(definition, bean, invocable, jsonMapper);
				handler.setErrorHandler(errorHandler(annotation));
				handler.setNotRetryableExceptions(List.of(annotation.noRetryFor()));
				registry().registerHandler(handler);
				Recurring recurring = AnnotatedElementUtils.findMergedAnnotation(method, Recurring.class);
				if (recurring != null) {
					registerRecurring(definition, recurring);
				}
			}
			catch (RuntimeException ex) {
				throw new BeanInitializationException("Could not register @QueuedJob method " + method.getName()
						+ " of bean '" + beanName + "': " + ex.getMessage(), ex);
			}
		});
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		JobListenerRegistry registry = registry();
		this.beanFactory.getBeanProvider(JobListenerConfigurer.class)
			.orderedStream()
			.forEach((configurer) -> configurer.configureJobListeners(registry));
		this.deadJobHandlers.forEach(Runnable::run);
		this.deadJobHandlers.clear();
		if (!this.beanFactory.containsBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)) {
			Assert.state(!registry.hasHandlers(),
					() -> "Could not create job listener containers: no "
							+ JobListenerContainerFactory.class.getSimpleName() + " bean named '"
							+ JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME + "' was found. Define one, "
							+ "or use Spring Boot's auto-configuration (io.redq:queue-starter)");
			return;
		}
		registry.createContainers(this.beanFactory.getBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
				JobListenerContainerFactory.class));
	}

	private void registerDeadJobHandler(Object bean, String beanName, Method method, DeadJobHandler annotation) {
		try {
			String jobName = resolve(annotation.value(), Function.identity(), null);
			Assert.state(jobName != null, "it names no job");
			JobHandler handler = registry().getHandler(jobName);
			Assert.state(handler != null, () -> "this application has no @QueuedJob method for job '" + jobName
					+ "': a dead-job handler runs where the job runs");
			registry().registerDeadJobCallback(jobName,
					new MethodDeadJobCallback(handler.getDefinition(), bean, method));
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException("Could not register @DeadJobHandler method " + method.getName()
					+ " of bean '" + beanName + "': " + ex.getMessage(), ex);
		}
	}

	private JobListenerRegistry registry() {
		if (this.registry == null) {
			this.registry = this.beanFactory.getBean(JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME,
					JobListenerRegistry.class);
		}
		return this.registry;
	}

	private JobDefinition definition(Method method, QueuedJob annotation) {
		JobDefaults defaults = this.beanFactory.getBeanProvider(JobDefaults.class)
			.getIfAvailable(() -> JobDefaults.STANDARD);
		String name = resolve(annotation.name(), Function.identity(), kebabCase(method.getName()));
		String queue = resolve(annotation.queue(), Function.identity(), defaults.queue());
		Assert.isTrue(annotation.maxAttempts() < 0 || annotation.maxAttemptsString().isEmpty(),
				"set either maxAttempts or maxAttemptsString, not both");
		int maxAttempts = (annotation.maxAttempts() >= 0) ? annotation.maxAttempts()
				: resolve(annotation.maxAttemptsString(), Integer::valueOf, defaults.maxAttempts());
		Duration timeout = resolve(annotation.timeout(), DurationFormatterUtils::detectAndParse, defaults.timeout());
		Backoff backoff = annotation.backoff();
		JobBackoff fallback = defaults.backoff();
		JobBackoff jobBackoff = new JobBackoff(
				resolve(backoff.delay(), DurationFormatterUtils::detectAndParse, fallback.delay()),
				resolve(backoff.multiplier(), Double::valueOf, fallback.multiplier()),
				resolve(backoff.maxDelay(), DurationFormatterUtils::detectAndParse, fallback.maxDelay()),
				resolve(backoff.jitter(), DurationFormatterUtils::detectAndParse, fallback.jitter()));
		JobLimits limits = new JobLimits(resolve(annotation.exclusiveKey(), Function.identity(), null),
				resolve(annotation.maxRunning(), Integer::valueOf, 0),
				resolve(annotation.rateLimit(), RateLimit::parse, null));
		return new JobDefinition(name, queue, maxAttempts, timeout, jobBackoff, MethodJobHandler.payloadType(method),
				limits, annotation.priority());
	}

	private @Nullable JobErrorHandler errorHandler(QueuedJob annotation) {
		String name = resolve(annotation.errorHandler(), Function.identity(), null);
		if (name == null) {
			return null;
		}
		Assert.state(this.beanFactory.containsBean(name), () -> "no " + JobErrorHandler.class.getSimpleName()
				+ " bean named '" + name + "' was found for its errorHandler attribute");
		return this.beanFactory.getBean(name, JobErrorHandler.class);
	}

	private void registerRecurring(JobDefinition definition, Recurring recurring) {
		RecurringJobScheduler scheduler = this.beanFactory.getBeanProvider(RecurringJobScheduler.class)
			.getIfAvailable();
		ZoneId defaultZone = (scheduler != null) ? scheduler.getDefaultZone() : RecurringJobScheduler.DEFAULT_ZONE;
		String cron = resolve(recurring.cron(), Function.identity(), null);
		Duration fixedRate = resolve(recurring.fixedRate(), DurationFormatterUtils::detectAndParse, null);
		ZoneId zone = resolve(recurring.zone(), ZoneId::of, null);
		if (Recurring.DISABLED.equals(cron)) {
			return;
		}
		Assert.isTrue((cron != null) != (fixedRate != null), "@Recurring needs either cron or fixedRate");
		Assert.isTrue(fixedRate == null || zone == null,
				"@Recurring zone applies to cron only; fixed-rate ticks are multiples of the rate since the epoch");
		Type payloadType = definition.payloadType();
		Assert.isTrue(payloadType == null || payloadType == Instant.class,
				() -> "a @Recurring job takes no payload or an Instant (the tick), not " + payloadType.getTypeName());
		RecurringSchedule schedule = (cron != null) ? RecurringSchedule.cron(cron, (zone != null) ? zone : defaultZone)
				: RecurringSchedule.fixedRate(fixedRate);
		if (scheduler == null) {
			logger.info("No RecurringJobScheduler (redq.recurring.enabled=false?): job '" + definition.name()
					+ "' runs only when dispatched, not on its " + schedule);
			return;
		}
		scheduler.register(new RecurringJobDefinition(definition, schedule, recurring.missedTicks()));
	}

	private <T> @Nullable T resolve(String value, Function<String, T> parser, @Nullable T fallback) {
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		if (!StringUtils.hasText(resolved)) {
			return fallback;
		}
		try {
			return parser.apply(resolved.trim());
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Invalid attribute value '" + resolved + "'"
					+ (value.equals(resolved) ? "" : " (from '" + value + "')") + ": " + ex.getMessage(), ex);
		}
	}

	static String kebabCase(String name) {
		// sendInvoice -> send-invoice; an acronym stays one word: exportCSVReport ->
		// export-csv-report
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2")
			.replaceAll("([A-Z])([A-Z][a-z])", "$1-$2")
			.toLowerCase(Locale.ROOT);
	}

}
