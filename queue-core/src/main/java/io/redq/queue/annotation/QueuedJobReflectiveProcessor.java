package io.redq.queue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

import io.redq.queue.listener.JobContext;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * Registers a {@link QueuedJob @QueuedJob} method for invocation and its payload type for
 * JSON binding, so that the handler runs in a native image.
 *
 * @author Redq team
 * @since 0.1.0
 */
class QueuedJobReflectiveProcessor extends SimpleReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindingRegistrar = new BindingReflectionHintsRegistrar();

	@Override
	protected void registerMethodHint(ReflectionHints hints, Method method) {
		super.registerMethodHint(hints, method);
		Class<?>[] types = method.getParameterTypes();
		Type[] genericTypes = method.getGenericParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (types[i] != JobContext.class) {
				this.bindingRegistrar.registerReflectionHints(hints, genericTypes[i]);
			}
		}
	}

}
