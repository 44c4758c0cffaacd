package io.redq.queue.core;

/**
 * Plugs in around every job a {@link JobDispatcher} dispatches: before it is written (to
 * add headers, or to veto it), and after Redis took it or the dispatch failed. Every
 * method does nothing by default.
 *
 * <p>
 * A dispatcher calls its interceptors in order (the auto-configuration picks up every
 * bean of this type and sorts them by {@link org.springframework.core.Ordered} or
 * {@link org.springframework.core.annotation.Order @Order}); when dispatches are
 * observed, the observation comes first, so that the trace context is current in the
 * others. A job dispatched inside a transaction meets the interceptors when it is sent,
 * after the commit; a job written to a transactional outbox ({@code JobOutbox}) meets
 * {@code beforeDispatch} at the dispatch and {@code afterDispatch} once its transaction
 * commits; a recurring tick meets them as it is enqueued.
 *
 * <pre class="code">
 * &#64;Bean
 * DispatchInterceptor tenantHeader(TenantResolver tenants) {
 * 	return new DispatchInterceptor() {
 *
 * 		&#64;Override
 * 		public void beforeDispatch(OutgoingJob job) {
 * 			job.getHeaders().put("tenant", tenants.currentTenant());
 * 		}
 *
 * 	};
 * }
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.listener.JobInterceptor
 */
public interface DispatchInterceptor {

	/**
	 * Called on the dispatching thread for each job, before it is written as JSON; may
	 * change its headers. Throwing vetoes the dispatch: the call fails with a
	 * {@link DispatchVetoedException} that names the job and this interceptor, before any
	 * job of the call is sent.
	 * @param job the job
	 */
	default void beforeDispatch(OutgoingJob job) {
	}

	/**
	 * Called once Redis has the job (whatever its {@link DispatchResult.Outcome}), on the
	 * thread that sent it (for {@link JobDispatcher#dispatchAsync}, the dispatcher's
	 * sending thread: keep it short). An exception thrown here is logged: the job is
	 * dispatched.
	 * @param job the job
	 */
	default void afterDispatch(OutgoingJob job) {
	}

	/**
	 * Called when a job whose {@link #beforeDispatch} ran was not dispatched: a later
	 * interceptor vetoed it, it could not be written, or Redis refused or did not answer
	 * (then it may be in Redis or not). An exception thrown here is logged.
	 * @param job the job
	 * @param exception why
	 */
	default void afterFailure(OutgoingJob job, Throwable exception) {
	}

}
