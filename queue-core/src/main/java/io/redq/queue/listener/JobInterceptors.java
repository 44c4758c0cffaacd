package io.redq.queue.listener;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The interceptor chain of a container: runs a handler through it and tells each
 * interceptor how the attempt ended.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class JobInterceptors {

	static final JobInterceptors NONE = new JobInterceptors(List.of());

	private static final Log logger = LogFactory.getLog(JobListenerContainer.class);

	private final JobInterceptor[] interceptors;

	JobInterceptors(List<JobInterceptor> interceptors) {
		this.interceptors = interceptors.toArray(JobInterceptor[]::new);
	}

	/**
	 * Run the handler through the chain.
	 * @return the handler's result, or {@code null} for none
	 */
	@Nullable Object run(JobHandler handler, @Nullable Object payload, JobContext job) throws Exception {
		if (this.interceptors.length == 0) {
			return handler.handle(payload, job);
		}
		// an interceptor's invocation returns nothing: the result passes it by
		Object[] result = new Object[1];
		proceed(0, handler, payload, job, result);
		return result[0];
	}

	/**
	 * Run the interceptors from the given one on: each one's {@code beforeRun} runs
	 * inside the wrap of those before it, so that their thread state is set.
	 */
	private void proceed(int index, JobHandler handler, @Nullable Object payload, JobContext job,
			@Nullable Object[] result) throws Exception {
		if (index == this.interceptors.length) {
			result[0] = handler.handle(payload, job);
		}
		else {
			this.interceptors[index].beforeRun(job, payload);
			this.interceptors[index].intercept(job, payload, () -> proceed(index + 1, handler, payload, job, result));
		}
	}

	void afterSuccess(JobContext job) {
		for (int i = this.interceptors.length - 1; i >= 0; i--) {
			try {
				this.interceptors[i].afterSuccess(job);
			}
			catch (RuntimeException ex) {
				logFailure(this.interceptors[i], "afterSuccess", job, ex);
			}
		}
	}

	void afterFailure(JobContext job, Throwable failure, @Nullable Duration retryDelay) {
		for (int i = this.interceptors.length - 1; i >= 0; i--) {
			try {
				this.interceptors[i].afterFailure(job, failure, retryDelay);
			}
			catch (RuntimeException ex) {
				logFailure(this.interceptors[i], "afterFailure", job, ex);
			}
		}
	}

	void afterDeath(JobContext job, Throwable failure) {
		for (int i = this.interceptors.length - 1; i >= 0; i--) {
			try {
				this.interceptors[i].afterDeath(job, failure);
			}
			catch (RuntimeException ex) {
				logFailure(this.interceptors[i], "afterDeath", job, ex);
			}
		}
	}

	private static void logFailure(JobInterceptor interceptor, String method, JobContext job, RuntimeException ex) {
		logger.warn("Job interceptor " + interceptor.getClass().getName() + " failed in " + method + " of job "
				+ job.getId() + "; ignored", ex);
	}

}
