package io.redq.queue.aot;

import io.redq.queue.inspect.InstanceView;
import io.redq.queue.redis.JobEnvelope;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The {@link RuntimeHints} that Redq needs in a native image: the Lua scripts it loads
 * from the class path and the job envelope that Jackson writes and reads. Handler methods
 * and their payload types get theirs from {@code @QueuedJob} itself. Registered in
 * {@code META-INF/spring/aot.factories}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class RedqRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern("io/redq/queue/script/*.lua")
			.registerPattern("io/redq/queue/lock/*.lua")
			.registerPattern("io/redq/queue/redis/*.lua");
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), JobEnvelope.class,
				InstanceView.class);
	}

}
