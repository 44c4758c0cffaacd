package io.redq.queue.autoconfigure;

import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.RecurringScripts;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of the scheduler of {@link io.redq.queue.annotation.Recurring} jobs.
 * Its ticks become jobs through the {@link RedisJobDispatcher}, the way dispatches do, so
 * that they meet the dispatch interceptors: an application that replaces the
 * {@code JobDispatcher} bean (such as the test kit's capturing dispatcher) schedules no
 * ticks.
 *
 * @author Redq team
 * @since 0.1.0
 */
@AutoConfiguration(after = JobQueueAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "redq.recurring.enabled", matchIfMissing = true)
@ConditionalOnBean({ RedisJobQueueOperations.class, RedisJobDispatcher.class })
@Import(ScriptBeanRegistrar.RecurringScriptBeans.class)
public final class RecurringJobsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RecurringJobScheduler recurringJobScheduler(RedisJobQueueOperations operations, RedisJobDispatcher dispatcher,
			JobQueueProperties properties, BeanFactory beanFactory) {
		RecurringJobScheduler scheduler = new RecurringJobScheduler(operations,
				RecurringScripts.from(ScriptBeanRegistrar.scriptBeans(beanFactory)), dispatcher);
		scheduler.setDefaultZone(properties.getRecurring().getZone());
		scheduler.setMaxLateness(properties.getRecurring().getMaxLateness());
		return scheduler;
	}

}
