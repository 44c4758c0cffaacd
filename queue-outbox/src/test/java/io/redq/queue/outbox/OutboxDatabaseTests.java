package io.redq.queue.outbox;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link OutboxDatabase}.
 *
 * @author Redq team
 */
class OutboxDatabaseTests {

	@Test // issue 35, item 4
	void supportedDatabasesAreRecognized() {
		assertThat(OutboxDatabase.of("PostgreSQL", 16, 2)).isEqualTo(OutboxDatabase.POSTGRESQL);
		assertThat(OutboxDatabase.of("H2", 2, 3)).isEqualTo(OutboxDatabase.H2);
		assertThat(OutboxDatabase.of("MariaDB", 10, 11)).isEqualTo(OutboxDatabase.MARIADB);
		assertThat(OutboxDatabase.of("MariaDB", 11, 4)).isEqualTo(OutboxDatabase.MARIADB);
	}

	@Test // issue 35, item 4
	void otherDatabasesAreRefusedWithTheSupportedOnesNamed() {
		for (String database : new String[] { "Oracle", "Microsoft SQL Server", "MySQL", "DB2" }) {
			assertThatIllegalStateException().isThrownBy(() -> OutboxDatabase.of(database, 19, 0))
				.withMessageContaining("supports PostgreSQL 9.5+, H2 2.x and MariaDB 10.6+")
				.withMessageContaining(database + " 19.0")
				.withMessageContaining("redq.outbox.enabled=false");
		}
	}

	@Test // issue 35, item 4
	void versionsWithoutTheNeededSqlAreRefused() {
		assertThatIllegalStateException().isThrownBy(() -> OutboxDatabase.of("MariaDB", 10, 5))
			.withMessageContaining("MariaDB 10.5");
		assertThatIllegalStateException().isThrownBy(() -> OutboxDatabase.of("H2", 1, 4));
		assertThatIllegalStateException().isThrownBy(() -> OutboxDatabase.of("PostgreSQL", 9, 4));
	}

}
