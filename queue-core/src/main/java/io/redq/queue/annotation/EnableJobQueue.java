package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Enables {@link QueuedJob} methods: registers the annotation processor, the
 * {@link io.redq.queue.config.JobCatalog job catalog} and the job listener registry.
 * Spring Boot's auto-configuration does this for you.
 *
 * <p>
 * Without Spring Boot, also define these beans:
 * <ul>
 * <li>a {@link org.springframework.data.redis.connection.RedisConnectionFactory}</li>
 * <li>a {@link io.redq.queue.redis.RedisJobQueueOperations} on it, the queues' operations
 * (and the {@link io.redq.queue.core.JobQueueOperations} operators use)</li>
 * <li>a {@link io.redq.queue.core.JobDispatcher}: a
 * {@link io.redq.queue.redis.RedisJobDispatcher} on those operations and the
 * {@code JobCatalog}</li>
 * <li>a {@link io.redq.queue.config.JobListenerContainerFactory} named
 * {@code jobListenerContainerFactory}, on the operations' listener calls</li>
 * </ul>
 * <pre class="code">
 * &#064;Configuration
 * &#064;EnableJobQueue
 * public class JobQueueConfig {
 *
 *     &#064;Bean
 *     LettuceConnectionFactory redisConnectionFactory() {
 *         return new LettuceConnectionFactory();
 *     }
 *
 *     &#064;Bean
 *     RedisJobQueueOperations jobQueueOperations(RedisConnectionFactory connectionFactory) {
 *         return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
 *     }
 *
 *     &#064;Bean
 *     RedisJobDispatcher jobDispatcher(RedisJobQueueOperations operations, JobCatalog jobCatalog) {
 *         return new RedisJobDispatcher(operations, jobCatalog, JsonMapper.shared());
 *     }
 *
 *     &#064;Bean
 *     JobListenerContainerFactory jobListenerContainerFactory(RedisJobQueueOperations operations) {
 *         return new JobListenerContainerFactory(operations.getListenerOperations(), JsonMapper.shared());
 *     }
 *
 * }</pre>
 * <p>
 * Optional beans: a {@code JsonMapper} for payloads,
 * {@link io.redq.queue.core.JobDefaults} for what {@code @QueuedJob} leaves out, and a
 * {@link io.redq.queue.recurring.RecurringJobScheduler} for {@link Recurring} methods.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.config.JobQueueConfigUtils
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(JobQueueBootstrapConfiguration.class)
public @interface EnableJobQueue {

}
