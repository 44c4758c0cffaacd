package io.redq.queue.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.redq.queue.test.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;
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

	@Test // issue 35, item 7
	void instancesStartingTogetherOnANewDatabaseCreateTheTablesWithoutFailing() {
		JdbcTemplate admin = new JdbcTemplate(dataSource("postgres"));
		for (int round = 0; round < 20; round++) {
			String database = "fresh_" + round;
			admin.execute("CREATE DATABASE " + database);
			DataSource fresh = dataSource(database);
			CountDownLatch start = new CountDownLatch(1);
			List<CompletableFuture<Void>> instances = new ArrayList<>();
			for (int instance = 0; instance < 3; instance++) {
				instances.add(CompletableFuture.runAsync(() -> {
					try {
						start.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					new ResourceDatabasePopulator(new ClassPathResource("io/redq/queue/outbox/schema-postgresql.sql"))
						.execute(fresh);
				}));
			}
			start.countDown();
			CompletableFuture.allOf(instances.toArray(CompletableFuture[]::new)).orTimeout(1, TimeUnit.MINUTES).join();
			assertThat(new JdbcTemplate(fresh).queryForList("SELECT name FROM redq_outbox_lock", String.class))
				.containsExactly("relay");
			admin.execute("DROP DATABASE " + database);
		}
	}

	private static DataSource dataSource(String database) {
		return new SimpleDriverDataSource(new Driver(), postgres.jdbcUrl().replace("/postgres", "/" + database),
				postgres.username(), "");
	}

	@Override
	protected String[] databaseProperties() {
		String[] connection = postgres.springProperties();
		return new String[] { connection[0], connection[1], "redq.outbox.jdbc.initialize-schema=always",
				"spring.datasource.type=" + SimpleDriverDataSource.class.getName() };
	}

}
