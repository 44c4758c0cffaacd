package io.redq.queue.listener.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.DeadJobCallback;
import io.redq.queue.listener.JobContext;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * {@link DeadJobCallback} that invokes a bean method: it takes, each optional, the
 * payload, a {@link JobContext} and a {@link Throwable}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class MethodDeadJobCallback implements DeadJobCallback {

	private static final int PAYLOAD = 0;

	private static final int CONTEXT = 1;

	private static final int EXCEPTION = 2;

	private final Object bean;

	private final Method method;

	/** What each parameter gets: the payload, the context or the exception. */
	private final int[] arguments;

	/**
	 * Create an instance.
	 * @param job the job whose deaths the method handles
	 * @param bean the bean
	 * @param method the method
	 * @throws IllegalArgumentException when the method takes other parameters, or a
	 * payload the job's payload is no instance of
	 */
	public MethodDeadJobCallback(JobDefinition job, Object bean, Method method) {
		this.bean = bean;
		this.method = method;
		Class<?>[] types = method.getParameterTypes();
		this.arguments = new int[types.length];
		int[] counts = new int[3];
		for (int i = 0; i < types.length; i++) {
			int kind = (types[i] == JobContext.class) ? CONTEXT : (types[i] == Throwable.class) ? EXCEPTION : PAYLOAD;
			this.arguments[i] = kind;
			counts[kind]++;
		}
		if (counts[PAYLOAD] > 1 || counts[CONTEXT] > 1 || counts[EXCEPTION] > 1) {
			throw new IllegalArgumentException("Dead-job handler " + method.toGenericString() + " must take, each "
					+ "optional, the payload, a JobContext and a Throwable: no other parameters");
		}
		for (int i = 0; i < types.length; i++) {
			if (this.arguments[i] == PAYLOAD) {
				checkPayloadType(job, types[i]);
			}
		}
		ReflectionUtils.makeAccessible(method);
	}

	private void checkPayloadType(JobDefinition job, Class<?> parameterType) {
		Class<?> payloadClass = rawClass(job.payloadType());
		if (payloadClass == null || !ClassUtils.resolvePrimitiveIfNecessary(parameterType)
			.isAssignableFrom(ClassUtils.resolvePrimitiveIfNecessary(payloadClass))) {
			throw new IllegalArgumentException("Dead-job handler " + this.method.toGenericString() + " takes a "
					+ parameterType.getName() + ", but job '" + job.name() + "' takes "
					+ ((payloadClass != null) ? "a " + payloadClass.getName() : "no payload"));
		}
	}

	private static @Nullable Class<?> rawClass(@Nullable Type type) {
		if (type instanceof Class<?> clazz) {
			return clazz;
		}
		return (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw)
				? raw : null;
	}

	@Override
	public void jobDied(@Nullable Object payload, JobContext job, Throwable exception) throws Exception {
		Object[] args = new Object[this.arguments.length];
		for (int i = 0; i < args.length; i++) {
			args[i] = switch (this.arguments[i]) {
				case CONTEXT -> job;
				case EXCEPTION -> exception;
				default -> payload;
			};
		}
		try {
			this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			if (ex.getTargetException() instanceof Exception failure) {
				throw failure;
			}
			throw new IllegalStateException("Dead-job handler " + this.method.getName() + " threw an error",
					ex.getTargetException());
		}
	}

	@Override
	public String toString() {
		return "@DeadJobHandler " + this.method.toGenericString();
	}

}
