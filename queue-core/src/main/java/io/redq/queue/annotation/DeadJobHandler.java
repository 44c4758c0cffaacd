package io.redq.queue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method that is called once when a job of the given name dies in this
 * application, with its last error: to tell a customer, undo a step, or keep the job
 * elsewhere. The method takes, in any order and each optional, the job's payload (a
 * parameter of the type its {@link QueuedJob} method takes, or a supertype), a
 * {@link io.redq.queue.listener.JobContext} and a {@link Throwable} (what failed the last
 * attempt):
 *
 * <pre class="code">
 * &#64;DeadJobHandler("send-invoice")
 * void invoiceNotSent(Invoice invoice, Throwable error) {
 * 	support.tell("Invoice " + invoice.number() + " was not sent: " + error.getMessage());
 * }
 * </pre>
 *
 * <p>
 * The job must have its {@code @QueuedJob} method in this application (the method runs
 * where the job dies), and has at most one dead-job handler; otherwise startup fails. It
 * runs after the job was recorded dead and after its error handler's recovery, on the
 * thread that settled the job (a worker, or the container's scheduler for a timeout). The
 * payload is {@code null} when it could not be read. An exception thrown here is logged
 * and changes nothing: the job stays dead.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.listener.DeadJobCallback
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DeadJobHandler {

	/**
	 * The name of the job whose deaths this method handles. Accepts {@code ${...}}
	 * placeholders.
	 * @return the job name
	 */
	String value();

}
