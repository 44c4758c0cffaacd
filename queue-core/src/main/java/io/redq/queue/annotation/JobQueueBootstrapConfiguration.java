package io.redq.queue.annotation;

import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link QueuedJobAnnotationBeanPostProcessor} and the
 * {@link JobListenerRegistry} under their internal names, unless they are registered
 * already.
 *
 * @author Redq team
 * @since 0.1.0
 * @see EnableJobQueue
 */
public class JobQueueBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		register(registry, JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME,
				QueuedJobAnnotationBeanPostProcessor.class);
		register(registry, JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME, JobListenerRegistry.class);
	}

	private static void register(BeanDefinitionRegistry registry, String name, Class<?> type) {
		if (!registry.containsBeanDefinition(name)) {
			RootBeanDefinition definition = new RootBeanDefinition(type);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(name, definition);
		}
	}

}
