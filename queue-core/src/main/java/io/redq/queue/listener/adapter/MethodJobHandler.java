package io.redq.queue.listener.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.List;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobErrorHandler;
import io.redq.queue.listener.JobHandler;
import io.redq.queue.listener.JobRejectedException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ReflectionUtils;

/**
 * {@link JobHandler} that invokes a bean method: the payload is converted to the method's
 * payload parameter type, a {@link JobContext} parameter, if declared, receives the job's
 * context, and the value the method returns, if any, is the job's result.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class MethodJobHandler implements JobHandler {

	private final JobDefinition definition;

	private final Object bean;

	private final Method method;

	private final JsonMapper jsonMapper;

	private final int payloadIndex;

	private final @Nullable JavaType payloadType;

	private @Nullable JobErrorHandler errorHandler;

	private List<Class<? extends Throwable>> notRetryableExceptions = List.of();

	/**
	 * Create an instance.
	 * @param definition the job the method runs
	 * @param bean the bean
	 * @param method the method: at most one payload parameter and at most one
	 * {@link JobContext} parameter
	 * @param jsonMapper the mapper that converts payloads
	 * @throws IllegalArgumentException when the method has other parameters
	 */
	public MethodJobHandler(JobDefinition definition, Object bean, Method method, JsonMapper jsonMapper) {
		this.definition = definition;
		this.bean = bean;
		this.method = method;
		this.jsonMapper = jsonMapper;
		this.payloadIndex = payloadParameterIndex(method);
		this.payloadType = (this.payloadIndex >= 0)
				? jsonMapper.constructType(method.getGenericParameterTypes()[this.payloadIndex]) : null;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Return the payload parameter type of a job method.
	 * @param method the method
	 * @return the payload type, or {@code null} when the method takes no payload
	 * @throws IllegalArgumentException when the method has other parameters
	 */
	public static @Nullable Type payloadType(Method method) {
		int index = payloadParameterIndex(method);
		return (index >= 0) ? method.getGenericParameterTypes()[index] : null;
	}

	private static int payloadParameterIndex(Method method) {
		int payload = -1;
		int contexts = 0;
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (types[i] == JobContext.class) {
				contexts++;
			}
			else if (payload < 0) {
				payload = i;
			}
			else {
				payload = Integer.MAX_VALUE;
			}
		}
		if (payload == Integer.MAX_VALUE || contexts > 1) {
			throw new IllegalArgumentException("Job method " + method.toGenericString() + " must take the payload "
					+ "and, optionally, a JobContext: no other parameters");
		}
		return payload;
	}

	@Override
	public JobDefinition getDefinition() {
		return this.definition;
	}

	/**
	 * Set the error handler that decides this job's retries instead of the container's.
	 * <p>
	 * Default {@code null}: the container's.
	 * @param errorHandler the error handler, or {@code null}
	 */
	public void setErrorHandler(@Nullable JobErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	@Override
	public @Nullable JobErrorHandler getErrorHandler() {
		return this.errorHandler;
	}

	/**
	 * Set the exception types that end this job without a retry.
	 * <p>
	 * Default none.
	 * @param notRetryableExceptions the exception types
	 */
	public void setNotRetryableExceptions(Collection<Class<? extends Throwable>> notRetryableExceptions) {
		this.notRetryableExceptions = List.copyOf(notRetryableExceptions);
	}

	@Override
	public Collection<Class<? extends Throwable>> getNotRetryableExceptions() {
		return this.notRetryableExceptions;
	}

	@Override
	public @Nullable Object handle(@Nullable Object payload, JobContext context) throws Exception {
		Object[] args = new Object[this.method.getParameterCount()];
		for (int i = 0; i < args.length; i++) {
			args[i] = (i == this.payloadIndex) ? payload : context;
		}
		try {
			// a void method returns null: no result
			return this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			if (ex.getTargetException() instanceof Exception exception) {
				throw exception;
			}
			throw new IllegalStateException("Job method " + this.method.getName() + " threw an error",
					ex.getTargetException());
		}
	}

	@Override
	public @Nullable Object readPayload(@Nullable JsonNode payload) {
		if (this.payloadType == null) {
			return null;
		}
		if (payload == null || payload.isNull() || payload.isMissingNode()) {
			if (this.payloadType.isPrimitive()) {
				throw new JobRejectedException("Job '" + this.definition.name() + "' has no payload, but its handler "
						+ "takes a " + this.payloadType.getRawClass().getName());
			}
			return null;
		}
		try {
			return this.jsonMapper.treeToValue(payload, this.payloadType);
		}
		catch (JacksonException ex) {
			throw new JobRejectedException("Payload of job '" + this.definition.name() + "' cannot be read as "
					+ this.payloadType.toCanonical() + ": " + ex.getOriginalMessage(), ex);
		}
	}

}
