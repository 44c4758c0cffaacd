package io.redq.queue.outbox;

import io.redq.queue.test.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests of the transactional outbox on a real PostgreSQL server, started for this class
 * from the machine's installation; the outbox table is created from the shipped script.
 *
 * @author Redq team
 */
class OutboxPostgresIntegrationTests extends AbstractOutboxIntegrationTests {

	private static PostgresServer postgres;

	@BeforeAll
	static void startPostgres() {
		assumeTrue(PostgresServer.isAvailable(), "PostgreSQL is not installed (apt-get install -y postgresql)");
		postgres = PostgresServer.start();
	}

	@AfterAll
	static void stopPostgres() {
		if (postgres != null) {
			postgres.close();
		}
	}

	@Override
	protected String[] databaseProperties() {
		String[] connection = postgres.springProperties();
		return new String[] { connection[0], connection[1], "redq.outbox.jdbc.initialize-schema=always",
				"spring.datasource.type=" + SimpleDriverDataSource.class.getName() };
	}

}
