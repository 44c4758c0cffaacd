package io.redq.queue.outbox;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests of the transactional outbox on a real MariaDB server, started for this class from
 * the machine's installation; the outbox tables are created from the shipped script.
 *
 * @author Redq team
 */
class OutboxMariaDbIntegrationTests extends AbstractOutboxIntegrationTests {

	private static MariaDbServer mariadb;

	@BeforeAll
	static void startMariaDb() {
		assumeTrue(MariaDbServer.isAvailable(), "MariaDB is not installed (apt-get install -y mariadb-server)");
		mariadb = MariaDbServer.start();
	}

	@AfterAll
	static void stopMariaDb() {
		if (mariadb != null) {
			mariadb.close();
		}
	}

	@Override
	protected String[] databaseProperties() {
		return new String[] { "spring.datasource.url=" + mariadb.jdbcUrl(), "spring.datasource.username=root",
				"redq.outbox.jdbc.initialize-schema=always",
				"spring.datasource.type=" + SimpleDriverDataSource.class.getName() };
	}

}
