package io.redq.queue.autoconfigure;

import java.util.List;
import java.util.function.Function;

import io.redq.queue.script.QueueScripts;
import io.redq.queue.script.RecurringScripts;
import io.redq.queue.script.ScriptDefinition;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.ResolvableType;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StringUtils;

/**
 * Registers a bean for each script of a script set, named {@code jobQueue<Name>Script}
 * (e.g. {@code jobQueueEnqueueScript}, {@code jobQueueRecurringTickScript}), unless the
 * application has a bean of that name, which then replaces ours.
 *
 * <p>
 * The beans are no default candidates (like {@code @Bean(defaultCandidate = false)}), so
 * that an application's own {@code RedisScript} injected by type still finds only its own
 * bean; Redq reads them back by name with {@link #scriptBeans(BeanFactory)}.
 *
 * @author Redq team
 */
abstract class ScriptBeanRegistrar implements ImportBeanDefinitionRegistrar {

	private final List<ScriptDefinition> definitions;

	ScriptBeanRegistrar(List<ScriptDefinition> definitions) {
		this.definitions = definitions;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		for (ScriptDefinition definition : this.definitions) {
			String name = beanName(definition);
			// auto-configurations are processed after the application's configuration,
			// so that its beans are registered by now
			if (!registry.isBeanNameInUse(name)) {
				registry.registerBeanDefinition(name, beanDefinition(definition));
			}
		}
	}

	private static RootBeanDefinition beanDefinition(ScriptDefinition definition) {
		// a static factory method rather than an instance supplier, so that AOT
		// processing can generate code for it
		RootBeanDefinition bean = new RootBeanDefinition(QueueScripts.class);
		bean.setFactoryMethodName("load");
		bean.getConstructorArgumentValues().addIndexedArgumentValue(0, definition.name());
		bean.getConstructorArgumentValues().addIndexedArgumentValue(1, definition.resultType());
		bean.setTargetType(ResolvableType.forClassWithGenerics(RedisScript.class, definition.resultType()));
		bean.setDefaultCandidate(false);
		return bean;
	}

	/**
	 * Return the name of the bean of a script: {@code jobQueue<Name>Script}, the name in
	 * camel case.
	 * @param definition the script
	 * @return the bean name
	 */
	static String beanName(ScriptDefinition definition) {
		StringBuilder name = new StringBuilder("jobQueue");
		for (String word : definition.name().split("-")) {
			name.append(StringUtils.capitalize(word));
		}
		return name.append("Script").toString();
	}

	/**
	 * Return the scripts of the given bean factory, by bean name, as a source for
	 * {@link QueueScripts#from(Function)} and {@link RecurringScripts#from(Function)}.
	 * @param beanFactory the bean factory
	 * @return the source of scripts
	 */
	static Function<ScriptDefinition, RedisScript<?>> scriptBeans(BeanFactory beanFactory) {
		return (definition) -> beanFactory.getBean(beanName(definition), RedisScript.class);
	}

	/**
	 * Registers the beans of {@link QueueScripts}.
	 */
	static class QueueScriptBeans extends ScriptBeanRegistrar {

		QueueScriptBeans() {
			super(QueueScripts.DEFINITIONS);
		}

	}

	/**
	 * Registers the beans of {@link RecurringScripts}.
	 */
	static class RecurringScriptBeans extends ScriptBeanRegistrar {

		RecurringScriptBeans() {
			super(RecurringScripts.DEFINITIONS);
		}

	}

}
