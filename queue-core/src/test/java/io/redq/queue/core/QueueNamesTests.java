package io.redq.queue.core;

import io.redq.queue.redis.Keyspace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link QueueNames}.
 *
 * @author Redq team
 */
class QueueNamesTests {

	@ParameterizedTest
	@ValueSource(strings = { "default", "mail", "orders.eu-1", "low_priority", "k\u00f6ln", "a", "with space" })
	void validQueueNamesAreAccepted(String queue) {
		assertThat(QueueNames.validate(queue)).isEqualTo(queue);
	}

	@Test
	void queueNameOfMaximumLengthIsAccepted() {
		String queue = "q".repeat(QueueNames.MAX_QUEUE_NAME_LENGTH);
		assertThat(QueueNames.validate(queue)).isEqualTo(queue);
	}

	@ParameterizedTest
	@ValueSource(strings = { "app{1}", "app}", "", "a\nb" })
	void keyPrefixThatWouldBreakTheHashTagIsRejectedByTheKeyspaceEveryKeyIsNamedIn(String prefix) {
		assertThatIllegalArgumentException().isThrownBy(() -> new Keyspace(prefix))
			.withMessageStartingWith("Invalid key prefix '");
	}

	@ParameterizedTest
	@ValueSource(strings = { "redq", "app:redq", "tenant-1.jobs", "a*b" })
	void keyPrefixesWithoutBracesAreAccepted(String prefix) {
		assertThat(QueueNames.validateKeyPrefix(prefix)).isEqualTo(prefix);
	}

	@Test
	void emptyQueueNameIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate(""))
			.withMessageStartingWith("Invalid queue name '': it is empty");
	}

	@Test
	void tooLongQueueNameIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueNames.validate("q".repeat(QueueNames.MAX_QUEUE_NAME_LENGTH + 1)))
			.withMessageContaining("it is 101 characters long, the limit is 100");
	}

	@Test
	void openingBraceIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate("mail{eu"))
			.withMessageContaining("Invalid queue name 'mail{eu'")
			.withMessageContaining("it contains '{', which would break the Redis Cluster hash tag");
	}

	@Test
	void closingBraceIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate("mail}"))
			.withMessageContaining("it contains '}', which would break the Redis Cluster hash tag");
	}

	@Test
	void newlineIsRejectedAndShownEscaped() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate("mail\nq"))
			.withMessageContaining("Invalid queue name 'mail\\u000Aq'")
			.withMessageContaining("it contains the control character U+000A");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\u0000", "tab\there", "del\u007f", "c1\u0085" })
	void controlCharactersAreRejected(String queue) {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate(queue))
			.withMessageContaining("it contains the control character U+");
	}

	@Test
	void rejectionSaysWhichCharactersToUse() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validate(""))
			.withMessageEndingWith("Use letters, digits and characters such as '-', '_' or '.'");
	}

	@Test
	void validIdsAreAccepted() {
		assertThat(QueueNames.validateId("order-17")).isEqualTo("order-17");
		// ids are members, not part of a key: braces do no harm there
		assertThat(QueueNames.validateId("{order}")).isEqualTo("{order}");
		String longest = "i".repeat(QueueNames.MAX_ID_LENGTH);
		assertThat(QueueNames.validateId(longest)).isEqualTo(longest);
	}

	@Test
	void emptyIdIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validateId(""))
			.withMessage("Invalid job id '': it is empty");
	}

	@Test
	void tooLongIdIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueNames.validateId("i".repeat(QueueNames.MAX_ID_LENGTH + 1)))
			.withMessageContaining("it is 201 characters long, the limit is 200");
	}

	@Test
	void idWithControlCharacterIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validateId("order\r17"))
			.withMessage("Invalid job id 'order\\u000D17': it contains the control character U+000D");
	}

	@Test
	void otherNamesAreCheckedByTheQueueNameRulesAndSayWhatTheyName() {
		assertThat(QueueNames.validateName("lock", "orders-17")).isEqualTo("orders-17");
		assertThatIllegalArgumentException().isThrownBy(() -> QueueNames.validateName("lock", "orders{17}"))
			.withMessageStartingWith("Invalid lock name 'orders{17}': it contains '{'");
	}

}
