package io.redq.queue.dashboard;

import java.util.List;

import javax.sql.DataSource;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.PostgresServer;
import org.postgresql.Driver;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.awaitility.Awaitility.await;

/**
 * A real PostgreSQL server for the tests of the outbox's parked rows, started with the
 * context and stopped with it, as the application's {@link DataSource}, so that the
 * outbox of {@code queue-outbox} is configured on it; and a way to have the relay park a
 * row. The tests run the application with
 * {@code redq.outbox.jdbc.initialize-schema=always} and
 * {@code redq.outbox.relay.max-attempts=1}.
 *
 * @author Redq team
 */
@TestConfiguration(proxyBeanMethods = false)
class OutboxTestDatabase {

	/** The queue of the jobs whose rows the relay parks; no listener consumes it. */
	static final String QUEUE = "parked";

	@Bean(destroyMethod = "close")
	PostgresServer outboxTestPostgres() {
		return PostgresServer.start();
	}

	@Bean
	DataSource dataSource(PostgresServer postgres) {
		return new SimpleDriverDataSource(new Driver(), postgres.jdbcUrl(), postgres.username(), "");
	}

	@Bean
	ParkedRows parkedRows(JdbcJobOutbox outbox, JobDispatcher dispatcher, PlatformTransactionManager transactions,
			RedisJobQueueOperations operations, StringRedisTemplate redis, DataSource dataSource) {
		return new ParkedRows(outbox, dispatcher, new TransactionTemplate(transactions), operations, redis,
				new JdbcTemplate(dataSource));
	}

	/**
	 * Rows that the relay parks as it does in production: a job dispatched in a
	 * transaction while its queue's key in Redis holds the wrong type, so that the relay
	 * fails to apply it.
	 */
	record ParkedRows(JdbcJobOutbox outbox, JobDispatcher dispatcher, TransactionTemplate transaction,
			RedisJobQueueOperations operations, StringRedisTemplate redis, JdbcTemplate jdbc) {

		/**
		 * Empty the outbox and its parked rows.
		 */
		void clear() {
			this.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			this.jdbc.update("DELETE FROM " + JdbcJobOutbox.PARKED_TABLE);
		}

		/**
		 * Dispatch a job in a transaction and wait until the relay parks its row; its
		 * queue is writable again afterwards.
		 * @param id the job's id
		 * @return the parked row's id
		 */
		long park(String id) {
			String jobs = this.operations.getStore().keys(QUEUE).jobs();
			this.redis.opsForValue().set(jobs, "not a hash");
			int before = this.outbox.parkedRows(0, JdbcJobOutbox.MAX_PARKED_PAGE).size();
			this.transaction.executeWithoutResult((status) -> this.dispatcher
				.dispatch(JobRequest.of("work", "parked " + id).id(id).queue(QUEUE).build()));
			await().until(() -> this.outbox.parkedRows(0, JdbcJobOutbox.MAX_PARKED_PAGE).size() == before + 1);
			this.redis.delete(jobs);
			List<JdbcJobOutbox.ParkedRow> rows = this.outbox.parkedRows(0, JdbcJobOutbox.MAX_PARKED_PAGE);
			return rows.get(rows.size() - 1).id();
		}

	}

}
