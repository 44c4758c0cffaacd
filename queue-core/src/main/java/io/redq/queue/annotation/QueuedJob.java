package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.redq.queue.core.JobPriority;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the handler of a job. The method takes the payload (converted
 * from JSON to the parameter's type) and, optionally, a
 * {@link io.redq.queue.listener.JobContext}:
 *
 * <pre class="code">
 * &#64;QueuedJob(name = "send-invoice", queue = "mail", maxAttempts = 5, timeout = "30s")
 * void sendInvoice(Invoice invoice) { ... }
 * </pre>
 *
 * <p>
 * Returning normally completes the job. Throwing fails the attempt: by default it is
 * retried after the {@link #backoff()} until {@link #maxAttempts()} is reached, then the
 * job is dead; the container factory's {@link io.redq.queue.listener.JobErrorHandler}, or
 * the job's own {@link #errorHandler()}, decides otherwise. A
 * {@link io.redq.queue.listener.JobRejectedException}, or an exception listed in
 * {@link #noRetryFor()}, sends it to dead at once. Every string attribute accepts
 * {@code ${...}} placeholders; an attribute left out takes the default from
 * {@code redq.job.*}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(QueuedJobReflectiveProcessor.class)
public @interface QueuedJob {

	/**
	 * The job name, unique in the application; dispatches name it and it is stored with
	 * each job. Defaults to the method name in kebab case ({@code sendInvoice} becomes
	 * {@code send-invoice}, {@code exportCSVReport} becomes {@code export-csv-report}).
	 * @return the job name
	 */
	String name() default "";

	/**
	 * The queue the job goes to. Defaults to {@code redq.job.queue} ({@code default}).
	 * @return the queue name
	 */
	String queue() default "";

	/**
	 * How many times the job is tried before it dies. Defaults to
	 * {@code redq.job.max-attempts}.
	 * @return the maximum attempts, or -1 for the default
	 */
	int maxAttempts() default -1;

	/**
	 * How many times the job is tried before it dies, as a string that may hold a
	 * {@code ${...}} placeholder, e.g. {@code "${invoice.max-attempts:5}"}. Use either
	 * this or {@link #maxAttempts()}; setting both fails at startup.
	 * @return the maximum attempts as a string
	 */
	String maxAttemptsString() default "";

	/**
	 * How long one attempt may run before it is interrupted and failed, as a duration
	 * such as {@code 30s}, {@code 500ms} or {@code PT1M}; {@code 0} for no limit.
	 * Defaults to {@code redq.job.timeout}.
	 * @return the timeout
	 */
	String timeout() default "";

	/**
	 * Makes the job exclusive per key: at most one job with the same key runs at a time
	 * across all application instances; the others wait (they are not failed) and run
	 * afterwards. A SpEL expression evaluated with the payload as root object, e.g.
	 * {@code "orderId()"} for a record or {@code "customer.id"} for a bean.
	 * @return the key expression, or empty for none
	 */
	String exclusiveKey() default "";

	/**
	 * How many jobs of this kind run at once across all application instances, as an
	 * integer; further jobs wait.
	 * @return the limit, or empty for none
	 */
	String maxRunning() default "";

	/**
	 * How many jobs of this kind start per sliding window across all application
	 * instances, as {@code <permits>/<window>}, e.g. {@code "100/1s"}; further jobs wait
	 * in line and start one by one as the window allows them.
	 * @return the rate limit, or empty for none
	 */
	String rateLimit() default "";

	/**
	 * The priority level of this job's dispatches, from {@value JobPriority#LOWEST} to
	 * {@value JobPriority#HIGHEST}; a dispatch may name another
	 * ({@link io.redq.queue.core.JobRequest.Builder#priority(int)}). Within a queue a
	 * higher level is reserved first, equal levels in order, and each level that has jobs
	 * keeps a share of the reservations (see {@link JobPriority}).
	 * @return the priority level
	 */
	int priority() default JobPriority.DEFAULT;

	/**
	 * The wait between attempts. Defaults to {@code redq.job.backoff.*}.
	 * @return the backoff
	 */
	Backoff backoff() default @Backoff;

	/**
	 * Exception types that are never retried: a failure whose exception, or one of its
	 * causes, is an instance of one of them dies on that attempt, whatever the error
	 * handler decides.
	 * @return the exception types
	 */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * The name of a {@link io.redq.queue.listener.JobErrorHandler} bean that decides this
	 * job's retries instead of the container factory's; accepts a {@code ${...}}
	 * placeholder. A name with no such bean fails at startup.
	 * @return the bean name, or empty for the factory's error handler
	 */
	String errorHandler() default "";

}
