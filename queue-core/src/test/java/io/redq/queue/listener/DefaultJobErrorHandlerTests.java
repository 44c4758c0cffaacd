package io.redq.queue.listener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.exc.MismatchedInputException;

import org.springframework.core.convert.ConversionFailedException;
import org.springframework.core.convert.TypeDescriptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DefaultJobErrorHandler}, without Redis.
 *
 * @author Redq team
 */
class DefaultJobErrorHandlerTests {

	private static final JobBackoff JOB_BACKOFF = new JobBackoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(1),
			Duration.ZERO);

	private static final JobDefinition DEFINITION = new JobDefinition("job", "queue", 3, Duration.ZERO, JOB_BACKOFF,
			String.class);

	@Test
	void retriesWithTheJobsBackoffUntilItsLastAttempt() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		RuntimeException failure = new IllegalStateException("failed");
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, failure)).isEqualTo(Duration.ofMillis(100));
		assertThat(errorHandler.retryDelay(new Attempt(2, 3), DEFINITION, failure)).isEqualTo(Duration.ofMillis(200));
		assertThat(errorHandler.retryDelay(new Attempt(3, 3), DEFINITION, failure)).isNull();
		assertThat(errorHandler.retryDelay(new Attempt(4, 3), DEFINITION, failure)).as("past its attempts").isNull();
	}

	@Test
	void maxAttemptsComeFromTheJobNotItsDefinition() {
		// a dispatch may give a job other attempts than its handler's definition
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		assertThat(errorHandler.retryDelay(new Attempt(3, 5), DEFINITION, new IllegalStateException()))
			.isEqualTo(Duration.ofMillis(400));
		assertThat(errorHandler.retryDelay(new Attempt(1, 1), DEFINITION, new IllegalStateException())).isNull();
	}

	@Test
	void aBackoffGivenToTheHandlerReplacesTheJobsOwn() {
		JobBackoff backoff = new JobBackoff(Duration.ofSeconds(5), 1.0, Duration.ofSeconds(5), Duration.ZERO);
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(backoff);
		assertThat(errorHandler.retryDelay(new Attempt(2, 3), DEFINITION, new IllegalStateException()))
			.isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void timeoutsAreRetriedLikeFailures() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, new TimeoutException("timed out")))
			.isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void exceptionsThatRetryingCannotHelpAreNotRetriedByDefault() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		List<Throwable> fatal = List.of(new ClassCastException(), new NoSuchMethodException(),
				new ConversionFailedException(TypeDescriptor.valueOf(String.class),
						TypeDescriptor.valueOf(Integer.class), "x", new NumberFormatException()),
				MismatchedInputException.from(null, String.class, "not a string"));
		assertThat(fatal)
			.allSatisfy((exception) -> assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, exception))
				.as("%s on attempt 1 of 3", exception.getClass().getSimpleName())
				.isNull());
	}

	@Test
	void notRetryableExceptionsAreFoundAmongTheCauses() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		errorHandler.addNotRetryableExceptions(IllegalArgumentException.class);
		RuntimeException wrapped = new IllegalStateException("outer",
				new RuntimeException("middle", new NumberFormatException("inner")));
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, wrapped))
			.as("NumberFormatException is an IllegalArgumentException")
			.isNull();
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION,
				new UncheckedIOException("io", new IOException("reset"))))
			.isNotNull();
	}

	@Test
	void aDefaultNotRetryableExceptionCanBeRetried() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		assertThat(errorHandler.removeNotRetryableException(ClassCastException.class)).isTrue();
		assertThat(errorHandler.getNotRetryableExceptions()).doesNotContain(ClassCastException.class);
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, new ClassCastException()))
			.isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void aCauseChainWithACycleEnds() {
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler();
		Cyclic first = new Cyclic();
		Cyclic second = new Cyclic();
		first.cause = second;
		second.cause = first;
		assertThat(errorHandler.retryDelay(new Attempt(1, 3), DEFINITION, first)).isNotNull();
	}

	@Test
	void deadJobsGoToTheRecoverer() {
		List<String> recovered = new ArrayList<>();
		DefaultJobErrorHandler errorHandler = new DefaultJobErrorHandler(
				(job, exception) -> recovered.add(job.getId() + ": " + exception.getMessage()));
		errorHandler.recover(new Attempt(3, 3), new IllegalStateException("failed"));
		assertThat(recovered).containsExactly("id: failed");
		new DefaultJobErrorHandler().recover(new Attempt(3, 3), new IllegalStateException("no recoverer"));
	}

	static class Cyclic extends RuntimeException {

		Throwable cause;

		@Override
		public synchronized Throwable getCause() {
			return this.cause;
		}

	}

	record Attempt(int getAttempt, int getMaxAttempts) implements JobContext {

		@Override
		public String getId() {
			return "id";
		}

		@Override
		public String getJobName() {
			return "job";
		}

		@Override
		public String getQueue() {
			return "queue";
		}

		@Override
		public Instant getCreatedAt() {
			return Instant.EPOCH;
		}

		@Override
		public Instant getAvailableAt() {
			return Instant.EPOCH;
		}

		@Override
		public Map<String, String> getHeaders() {
			return Map.of();
		}

		@Override
		public boolean isLeaseLost() {
			return false;
		}

		@Override
		public boolean extendLease(Duration duration) {
			return true;
		}

	}

}
