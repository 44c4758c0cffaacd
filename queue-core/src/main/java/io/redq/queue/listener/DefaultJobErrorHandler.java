package io.redq.queue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.DatabindException;

import org.springframework.core.convert.ConversionException;
import org.springframework.util.Assert;

/**
 * The {@link JobErrorHandler} a container uses unless told otherwise: retries a failed
 * attempt with backoff until the job used its attempts, except for exceptions that
 * retrying cannot help, and hands each dead job to a {@link JobRecoverer}.
 *
 * <p>
 * The backoff is each job's own ({@code @QueuedJob(backoff = ...)}, else
 * {@code redq.job.backoff.*}) unless one is given here for every job. An exception is not
 * retried when it, or one of its causes, is an instance of a not-retryable type: by
 * default {@link ClassCastException}, {@link NoSuchMethodException},
 * {@link ConversionException} and Jackson's {@link DatabindException}, which say that the
 * job's data or code does not fit and would fail the same way again; change the list with
 * {@link #addNotRetryableExceptions} and {@link #removeNotRetryableException}.
 *
 * <pre class="code">
 * DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(
 * 		(job, exception) -&gt; alerts.jobDied(job.getId(), exception));
 * errorHandler.addNotRetryableExceptions(IllegalArgumentException.class);
 * containerFactory.setErrorHandler(errorHandler);
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DefaultJobErrorHandler implements JobErrorHandler {

	private static final JobRecoverer NO_RECOVERER = (job, exception) -> {
	};

	private final JobRecoverer recoverer;

	private final @Nullable JobBackoff backoff;

	private final Set<Class<? extends Throwable>> notRetryableExceptions = new LinkedHashSet<>(
			defaultNotRetryableExceptions());

	/**
	 * Create an instance that retries with each job's own backoff and only records dead
	 * jobs in the dead set.
	 */
	public DefaultJobErrorHandler() {
		this(NO_RECOVERER, null);
	}

	/**
	 * Create an instance that retries every job with the given backoff and only records
	 * dead jobs in the dead set.
	 * @param backoff the backoff
	 */
	public DefaultJobErrorHandler(JobBackoff backoff) {
		this(NO_RECOVERER, backoff);
	}

	/**
	 * Create an instance that retries with each job's own backoff and hands dead jobs to
	 * the recoverer.
	 * @param recoverer the recoverer
	 */
	public DefaultJobErrorHandler(JobRecoverer recoverer) {
		this(recoverer, null);
	}

	/**
	 * Create an instance.
	 * @param recoverer the recoverer of dead jobs
	 * @param backoff the backoff for every job, or {@code null} for each job's own
	 */
	public DefaultJobErrorHandler(JobRecoverer recoverer, @Nullable JobBackoff backoff) {
		Assert.notNull(recoverer, "JobRecoverer must not be null");
		this.recoverer = recoverer;
		this.backoff = backoff;
	}

	/**
	 * Add exception types that are never retried: a failure whose exception, or one of
	 * its causes, is an instance of one of them dies on that attempt.
	 * @param exceptionTypes the exception types
	 */
	@SafeVarargs
	@SuppressWarnings("varargs")
	public final void addNotRetryableExceptions(Class<? extends Throwable>... exceptionTypes) {
		Collections.addAll(this.notRetryableExceptions, exceptionTypes);
	}

	/**
	 * Remove an exception type from those that are never retried, e.g. one of the
	 * defaults.
	 * @param exceptionType the exception type
	 * @return whether it was not retryable before
	 */
	public boolean removeNotRetryableException(Class<? extends Throwable> exceptionType) {
		return this.notRetryableExceptions.remove(exceptionType);
	}

	/**
	 * Return the exception types that are never retried.
	 * @return an unmodifiable view
	 */
	public Set<Class<? extends Throwable>> getNotRetryableExceptions() {
		return Collections.unmodifiableSet(this.notRetryableExceptions);
	}

	@Override
	public @Nullable Duration retryDelay(JobContext job, JobDefinition definition, Throwable exception) {
		if (job.getAttempt() >= job.getMaxAttempts() || isCausedByAnyOf(exception, this.notRetryableExceptions)) {
			return null;
		}
		JobBackoff backoff = (this.backoff != null) ? this.backoff : definition.backoff();
		return backoff.delayAfter(job.getAttempt());
	}

	@Override
	public void recover(JobContext job, Throwable exception) {
		this.recoverer.recover(job, exception);
	}

	/**
	 * Return whether the exception, or one of its causes, is an instance of one of the
	 * types.
	 */
	static boolean isCausedByAnyOf(Throwable exception, Collection<Class<? extends Throwable>> types) {
		if (types.isEmpty()) {
			return false;
		}
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = exception; cause != null && seen.add(cause); cause = cause.getCause()) {
			for (Class<? extends Throwable> type : types) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

	private static List<Class<? extends Throwable>> defaultNotRetryableExceptions() {
		return List.of(ClassCastException.class, NoSuchMethodException.class, ConversionException.class,
				DatabindException.class);
	}

}
