package io.redq.queue.annotation;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.RuntimeBeanReference;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link QueuedJobAnnotationBeanPostProcessor}, the {@link JobCatalog} and
 * the {@link JobListenerRegistry} under their internal names, unless they are registered
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
				new RootBeanDefinition(QueuedJobAnnotationBeanPostProcessor.class));
		register(registry, JobQueueConfigUtils.JOB_CATALOG_BEAN_NAME, new RootBeanDefinition(JobCatalog.class));
		RootBeanDefinition listenerRegistry = new RootBeanDefinition(JobListenerRegistry.class);
		listenerRegistry.getConstructorArgumentValues()
			.addGenericArgumentValue(new RuntimeBeanReference(JobQueueConfigUtils.JOB_CATALOG_BEAN_NAME));
		register(registry, JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME, listenerRegistry);
	}

	private static void register(BeanDefinitionRegistry registry, String name, RootBeanDefinition definition) {
		if (!registry.containsBeanDefinition(name)) {
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(name, definition);
		}
	}

}
