package io.redq.queue.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.redq.queue.core.JobRequest;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.test.PostgresServer;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The outbox relay killed with SIGKILL after it applied a row to Redis and before it
 * deleted it: another relay applies the row again under the same nonces, and no job is
 * lost or run twice, although the workers completed the first copies meanwhile.
 *
 * @author Redq team
 */
class OutboxRelayFaultsIntegrationTests extends ChaosSupport {

	private static final int TRANSACTIONS = 20;

	private static final int JOBS_PER_TRANSACTION = 50;

	/** The advisory lock that the test holds to stop the relay's DELETE. */
	private static final int DELETE_GATE = 4242;

	private PostgresServer postgres;

	private SimpleDriverDataSource dataSource;

	private final List<Process> relays = new ArrayList<>();

	@BeforeEach
	void startPostgres() {
		assumeTrue(PostgresServer.isAvailable(), "PostgreSQL is not installed (apt-get install -y postgresql)");
		this.postgres = PostgresServer.start();
		this.dataSource = new SimpleDriverDataSource(new Driver(), this.postgres.jdbcUrl(), this.postgres.username(),
				"");
		new ResourceDatabasePopulator(new ClassPathResource("io/redq/queue/outbox/schema-postgresql.sql"))
			.execute(this.dataSource);
	}

	@AfterEach
	void stopPostgres() {
		this.relays.forEach(Signals::destroy);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test // issue 28
	void relayKilledBetweenSendAndDeleteLosesNothingAndRunsNothingTwice() throws SQLException {
		startRedis();
		// a lease long enough that no job is handed to another worker while it runs
		startWorkers(2, "--redq.listener.lease-time=30s");
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		// every DELETE of an outbox row waits for the gate while the test holds it
		jdbc.execute("CREATE FUNCTION chaos_gate() RETURNS trigger AS $$ BEGIN PERFORM pg_advisory_lock(" + DELETE_GATE
				+ "); PERFORM pg_advisory_unlock(" + DELETE_GATE + "); RETURN OLD; END $$ LANGUAGE plpgsql");
		jdbc.execute("CREATE TRIGGER chaos_gate BEFORE DELETE ON " + JdbcJobOutbox.TABLE
				+ " FOR EACH ROW EXECUTE FUNCTION chaos_gate()");
		try (Connection gate = this.dataSource.getConnection()) {
			execute(gate, "SELECT pg_advisory_lock(" + DELETE_GATE + ")");
			List<String> ids = dispatchInTransactions();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + JdbcJobOutbox.TABLE, Long.class))
				.isEqualTo(TRANSACTIONS);
			Process first = launchRelay("relay-0");
			// the first relay's first row (50 jobs) is in Redis and run by the workers,
			// while its DELETE waits
			awaitEntries((entry) -> entry.is("DONE"), JOBS_PER_TRANSACTION, Duration.ofMinutes(2));
			Signals.send(first.pid(), "KILL");
			assertThat(first.onExit().join().exitValue()).isNotZero();
			// its DELETE (a statement of its own) ends with its session, before the gate
			// would let it commit
			jdbc.queryForList("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'DELETE FROM "
					+ JdbcJobOutbox.TABLE + "%' AND state <> 'idle'");
			await().atMost(Duration.ofMinutes(1))
				.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'DELETE FROM "
						+ JdbcJobOutbox.TABLE + "%' AND state <> 'idle'", Long.class) == 0);
			execute(gate, "SELECT pg_advisory_unlock(" + DELETE_GATE + ")");
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + JdbcJobOutbox.TABLE, Long.class))
				.as("the killed relay's rows are still there")
				.isEqualTo(TRANSACTIONS);
			// once the killed relay's claim on its rows lapses (a minute)
			launchRelay("relay-1");
			await().atMost(Duration.ofMinutes(3))
				.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + JdbcJobOutbox.TABLE, Long.class) == 0);
			awaitDrained(Duration.ofMinutes(2));
			Map<String, Long> starts = entries((entry) -> entry.is("START")).stream()
				.collect(Collectors.groupingBy(LedgerEntry::id, Collectors.counting()));
			Map<String, Long> done = entries((entry) -> entry.is("DONE")).stream()
				.collect(Collectors.groupingBy(LedgerEntry::id, Collectors.counting()));
			assertThat(done.keySet()).as("nothing lost").containsExactlyInAnyOrderElementsOf(ids);
			assertThat(starts).as("nothing run twice").allSatisfy((id, count) -> assertThat(count).isOne());
			assertThat(starts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
			report(ids.size() + " jobs in " + TRANSACTIONS + " rows; relay killed after applying a row; each job "
					+ "ran once");
		}
	}

	private List<String> dispatchInTransactions() {
		JdbcJobOutbox outbox = new JdbcJobOutbox(this.dispatcher, this.dataSource);
		TransactionAwareJobDispatcher dispatcher = new TransactionAwareJobDispatcher(this.dispatcher);
		dispatcher.setOutbox(outbox);
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		List<String> ids = new ArrayList<>();
		for (int t = 0; t < TRANSACTIONS; t++) {
			transaction.executeWithoutResult((status) -> {
				List<JobRequest> requests = new ArrayList<>();
				for (int j = 0; j < JOBS_PER_TRANSACTION; j++) {
					requests.add(JobRequest.of(ChaosTask.JOB_NAME, ChaosTask.standard()).build());
				}
				dispatcher.dispatchAll(requests).forEach((result) -> ids.add(result.id()));
			});
		}
		return ids;
	}

	private Process launchRelay(String name) {
		Path log = this.directory.resolve(name + ".log");
		List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
				"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
				ChaosRelay.class.getName(), Integer.toString(this.redis.port()), this.postgres.jdbcUrl());
		try {
			Process relay = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			this.relays.add(relay);
			return relay;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
