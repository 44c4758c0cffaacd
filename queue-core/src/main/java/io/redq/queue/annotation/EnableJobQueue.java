package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Enables {@link QueuedJob} methods: registers the annotation processor and the job
 * listener registry. Spring Boot's auto-configuration does this for you; without Boot,
 * also define a {@link io.redq.queue.config.JobListenerContainerFactory} bean named
 * {@code jobListenerContainerFactory}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(JobQueueBootstrapConfiguration.class)
public @interface EnableJobQueue {

}
