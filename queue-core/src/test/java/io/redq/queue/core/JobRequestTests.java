package io.redq.queue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link JobRequest}.
 *
 * @author Redq team
 */
class JobRequestTests {

	@Test
	void defaultsToNowWithGeneratedIdAndJobSettings() {
		JobRequest request = JobRequest.of("send-invoice", "payload").build();
		assertThat(request.getJobName()).isEqualTo("send-invoice");
		assertThat(request.getPayload()).isEqualTo("payload");
		assertThat(request.getDue()).isEqualTo(Due.NOW);
		assertThat(request.getId()).isNull();
		assertThat(request.getQueue()).isNull();
		assertThat(request.getMaxAttempts()).isNull();
		assertThat(request.getDuplicatePolicy()).isEqualTo(DuplicatePolicy.KEEP);
		assertThat(request.getHeaders()).isEmpty();
	}

	@Test
	void atTheLastMillisecondOfYear9999IsAccepted() {
		Instant last = Instant.parse("9999-12-31T23:59:59.999Z");
		JobRequest request = JobRequest.of("job", null).at(last).build();
		assertThat(request.getDue()).isEqualTo(new Due(true, last.toEpochMilli()));
	}

	@Test
	void atBeyondYear9999IsRejected() {
		JobRequest.Builder builder = JobRequest.of("job", null);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.at(Instant.parse("+10000-01-01T00:00:00Z")))
			.withMessageContaining("is after the year 9999");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.at(Instant.MAX))
			.withMessageContaining("is after the year 9999");
	}

	@Test
	void delayEndingAfterYear9999IsRejected() {
		JobRequest.Builder builder = JobRequest.of("job", null);
		assertThat(builder.delay(Duration.ofDays(365L * 1000)).build().getDue())
			.isEqualTo(new Due(false, Duration.ofDays(365L * 1000).toMillis()));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.delay(Duration.ofMillis(Long.MAX_VALUE)))
			.withMessageContaining("ends after the year 9999");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.delay(Duration.ofSeconds(Long.MAX_VALUE)))
			.withMessageContaining("ends after the year 9999");
	}

	@Test
	void atInThePastIsAccepted() {
		Instant past = Instant.parse("2001-01-01T00:00:00Z");
		assertThat(JobRequest.of("job", null).at(past).build().getDue()).isEqualTo(new Due(true, past.toEpochMilli()));
	}

	@Test
	void delayAfterAtWins() {
		JobRequest request = JobRequest.of("job", null)
			.at(Instant.parse("2030-01-01T00:00:00Z"))
			.delay(Duration.ofSeconds(5))
			.build();
		assertThat(request.getDue()).isEqualTo(new Due(false, 5000));
	}

	@Test
	void atAfterDelayWins() {
		Instant at = Instant.parse("2030-01-01T00:00:00Z");
		JobRequest request = JobRequest.of("job", null).delay(Duration.ofSeconds(5)).at(at).build();
		assertThat(request.getDue()).isEqualTo(new Due(true, at.toEpochMilli()));
	}

	@Test
	void idWithPolicyIsKept() {
		JobRequest request = JobRequest.of("job", null).id("order-17", DuplicatePolicy.REPLACE).build();
		assertThat(request.getId()).isEqualTo("order-17");
		assertThat(request.getDuplicatePolicy()).isEqualTo(DuplicatePolicy.REPLACE);
	}

	@Test
	void idWithoutPolicyKeepsTheExistingJob() {
		JobRequest request = JobRequest.of("job", null).id("order-17").build();
		assertThat(request.getDuplicatePolicy()).isEqualTo(DuplicatePolicy.KEEP);
	}

	@Test
	void emptyIdIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).id(""))
			.withMessageContaining("Invalid job id '': it is empty");
	}

	@Test
	void idWithControlCharacterIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).id("a\u0000b"))
			.withMessageContaining("control character U+0000");
	}

	@Test
	void tooLongIdIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobRequest.of("job", null).id("x".repeat(QueueNames.MAX_ID_LENGTH + 1)))
			.withMessageContaining("the limit is 200");
	}

	@Test
	void invalidQueueIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).queue("a{b}"))
			.withMessageContaining("Invalid queue name 'a{b}'");
	}

	@Test
	void priorityOutsideTheLevelsIsRejectedWithTheRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).priority(10))
			.withMessage(
					"The dispatch has priority 10, outside the levels 0 (lowest) to 9 (highest); 5 is the default");
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).priority(-1));
		assertThat(JobRequest.of("job", null).priority(0).build().getPriority()).isZero();
		assertThat(JobRequest.of("job", null).build().getPriority()).as("the job's own").isNull();
	}

	@Test
	void aGroupNameThatIsNoPlainKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).group("acme corp"))
			.withMessage("Group 'acme corp' must be 1 to 128 letters, digits and . _ : @ -; "
					+ "map other names to such a key, e.g. a tenant's id");
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).group(""));
		assertThat(JobRequest.of("job", null).group("tenant-17@eu").build().getGroup()).isEqualTo("tenant-17@eu");
	}

	@Test
	void maxAttemptsBelowOneIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("job", null).maxAttempts(0))
			.withMessage("maxAttempts must be at least 1, not 0");
		assertThatNoException().isThrownBy(() -> JobRequest.of("job", null).maxAttempts(1));
	}

	@Test
	void emptyJobNameIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobRequest.of("", null))
			.withMessage("jobName must not be empty");
	}

	@Test
	void headersAreCopiedWhenBuilt() {
		JobRequest.Builder builder = JobRequest.of("job", null).header("tenant", "acme");
		JobRequest request = builder.build();
		builder.header("trace", "1");
		assertThat(request.getHeaders()).containsExactly(Map.entry("tenant", "acme"));
	}

}
