package io.redq.queue.script;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.springframework.beans.BeanUtils;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One of Redq's Lua scripts: the name it is loaded by and the type of its result.
 *
 * <p>
 * The script sets ({@link QueueScripts}, {@link RecurringScripts}) list their scripts
 * once, as record components; their definitions and instances are derived from those
 * components, so that a script added to a set needs no further list to be kept in step,
 * such as the bean definitions of Spring Boot's auto-configuration.
 *
 * @param name the name: the script is the resource {@code <name>.lua} next to
 * {@link QueueScripts}, e.g. {@code enqueue} or {@code recurring-tick}
 * @param resultType the result type: {@code List} for arrays, {@code Long} for integers
 * @author Redq team
 * @since 0.1.0
 */
public record ScriptDefinition(String name, Class<?> resultType) {

	/**
	 * Load the script from the class path, with the shared {@code common.lua} prepended.
	 * @return the script
	 */
	public RedisScript<?> load() {
		return QueueScripts.load(this.name, this.resultType);
	}

	/**
	 * Return the definitions of a script set, one per record component and in their
	 * order, each named by the prefix and the component's name.
	 */
	static List<ScriptDefinition> of(Class<? extends Record> scripts, String prefix) {
		List<ScriptDefinition> definitions = new ArrayList<>();
		for (RecordComponent component : scripts.getRecordComponents()) {
			ParameterizedType type = (ParameterizedType) component.getGenericType();
			definitions
				.add(new ScriptDefinition(prefix + component.getName(), (Class<?>) type.getActualTypeArguments()[0]));
		}
		return List.copyOf(definitions);
	}

	/**
	 * Create a script set from its definitions, taking each script from the given
	 * function.
	 */
	static <T extends Record> T create(Class<T> scripts, List<ScriptDefinition> definitions,
			Function<ScriptDefinition, RedisScript<?>> source) {
		return BeanUtils.instantiateClass(BeanUtils.getResolvableConstructor(scripts),
				definitions.stream().map(source).toArray());
	}

}
