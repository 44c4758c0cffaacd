package io.redq.queue.listener;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Plugs in around every attempt of the jobs a container runs: before it, around it (to
 * set up thread state such as an MDC entry, a tenant or a security context), and after it
 * succeeded, failed or died. Every method does nothing by default.
 *
 * <p>
 * A container calls its interceptors in order (the auto-configuration picks up every bean
 * of this type and sorts them by {@link org.springframework.core.Ordered} or
 * {@link org.springframework.core.annotation.Order @Order}), the first one outermost: its
 * {@link #beforeRun} and then its {@link #intercept}, inside which the next one's run,
 * and so on to the handler; the {@code after*} methods in reverse order. When processing
 * is observed, the observation wraps them all, so that its trace context is current in
 * each.
 *
 * <pre class="code">
 * &#64;Bean
 * JobInterceptor tenantInterceptor() {
 * 	return new JobInterceptor() {
 *
 * 		&#64;Override
 * 		public void intercept(JobContext job, Object payload, Invocation invocation) throws Exception {
 * 			try (MDC.MDCCloseable tenant = MDC.putCloseable("tenant", job.getHeaders().get("tenant"))) {
 * 				invocation.proceed();
 * 			}
 * 		}
 *
 * 	};
 * }
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.core.DispatchInterceptor
 */
public interface JobInterceptor {

	/**
	 * Called on the worker before the handler runs, once the job holds its lease and its
	 * gates. Throwing fails the attempt as the handler failing would (a
	 * {@link JobRejectedException} ends the job without a retry); the handler and
	 * {@link #intercept} do not run.
	 * @param job the job
	 * @param payload the payload, as the handler takes it
	 * @throws Exception to fail the attempt
	 */
	default void beforeRun(JobContext job, @Nullable Object payload) throws Exception {
	}

	/**
	 * Wrap the handler's run, on the worker; call {@link Invocation#proceed()} exactly
	 * once to run the rest of the chain and the handler. What this throws fails the
	 * attempt.
	 * @param job the job
	 * @param payload the payload, as the handler takes it
	 * @param invocation the rest of the chain
	 * @throws Exception to fail the attempt
	 */
	default void intercept(JobContext job, @Nullable Object payload, Invocation invocation) throws Exception {
		invocation.proceed();
	}

	/**
	 * Called on the worker after the handler returned, once its acknowledgement is queued
	 * (it is sent in a batch shortly after). An exception thrown here is logged and
	 * changes nothing.
	 * @param job the job
	 */
	default void afterSuccess(JobContext job) {
	}

	/**
	 * Called after a failed or timed-out attempt was recorded in Redis, with the decision
	 * of the error handler; on the thread that settled it (a worker, or the container's
	 * scheduler for a timeout). Not called when the failure was refused because the lease
	 * was lost meanwhile (the job runs again elsewhere). An exception thrown here is
	 * logged and changes nothing.
	 * @param job the job
	 * @param failure what the handler, or an interceptor, threw; a
	 * {@link java.util.concurrent.TimeoutException} after a timeout
	 * @param retryDelay the delay before the next attempt, or {@code null} when the job
	 * is dead
	 */
	default void afterFailure(JobContext job, Throwable failure, @Nullable Duration retryDelay) {
	}

	/**
	 * Called once when the job died on its final attempt, after {@link #afterFailure} and
	 * after its error handler's recovery. An exception thrown here is logged and changes
	 * nothing.
	 * @param job the dead job
	 * @param failure what failed its last attempt
	 */
	default void afterDeath(JobContext job, Throwable failure) {
	}

	/**
	 * The rest of an interceptor chain: the next interceptors and the handler.
	 */
	@FunctionalInterface
	interface Invocation {

		/**
		 * Run the rest of the chain and the handler.
		 * @throws Exception what they threw
		 */
		void proceed() throws Exception;

	}

}
