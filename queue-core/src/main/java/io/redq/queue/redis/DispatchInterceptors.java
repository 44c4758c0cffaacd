package io.redq.queue.redis;

import java.util.List;

import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.DispatchVetoedException;
import io.redq.queue.core.OutgoingJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The interceptor chain of a dispatcher, and the jobs that passed through it: each
 * prepared job that met interceptors carries an {@link Interception}, which tells them
 * how its dispatch ended.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class DispatchInterceptors {

	static final DispatchInterceptors NONE = new DispatchInterceptors(List.of());

	private static final Log logger = LogFactory.getLog(RedisJobDispatcher.class);

	private final DispatchInterceptor[] interceptors;

	DispatchInterceptors(List<DispatchInterceptor> interceptors) {
		this.interceptors = interceptors.toArray(DispatchInterceptor[]::new);
	}

	boolean isEmpty() {
		return this.interceptors.length == 0;
	}

	/**
	 * Pass a job through every interceptor's {@code beforeDispatch}; on a veto, tell
	 * those that passed it.
	 * @throws DispatchVetoedException on a veto
	 */
	Interception before(OutgoingJob job) {
		for (int i = 0; i < this.interceptors.length; i++) {
			try {
				this.interceptors[i].beforeDispatch(job);
			}
			catch (RuntimeException ex) {
				DispatchVetoedException veto = new DispatchVetoedException("Job '" + job.getJobName() + "' (queue '"
						+ job.getQueue() + "', id " + job.getId() + ") was not dispatched: "
						+ this.interceptors[i].getClass().getName() + " vetoed it: " + ex.getMessage(), ex);
				new Interception(job, i).failed(veto);
				throw veto;
			}
		}
		return new Interception(job, this.interceptors.length);
	}

	/**
	 * A job that passed the first interceptors: these are told how its dispatch ended.
	 */
	final class Interception {

		private final OutgoingJob job;

		private final int passed;

		private Interception(OutgoingJob job, int passed) {
			this.job = job;
			this.passed = passed;
		}

		OutgoingJob job() {
			return this.job;
		}

		void dispatched() {
			for (int i = this.passed - 1; i >= 0; i--) {
				try {
					DispatchInterceptors.this.interceptors[i].afterDispatch(this.job);
				}
				catch (RuntimeException ex) {
					log(DispatchInterceptors.this.interceptors[i], "afterDispatch", ex);
				}
			}
		}

		void failed(Throwable failure) {
			for (int i = this.passed - 1; i >= 0; i--) {
				try {
					DispatchInterceptors.this.interceptors[i].afterFailure(this.job, failure);
				}
				catch (RuntimeException ex) {
					log(DispatchInterceptors.this.interceptors[i], "afterFailure", ex);
				}
			}
		}

		private void log(DispatchInterceptor interceptor, String method, RuntimeException ex) {
			logger.warn("Dispatch interceptor " + interceptor.getClass().getName() + " failed in " + method + " of job "
					+ this.job.getId() + "; ignored", ex);
		}

	}

}
