package io.redq.queue.chaos;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.outbox.JdbcOutboxRelay;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * An outbox relay for the fault-injection tests, started by them as a separate JVM so
 * that it can be killed: arguments are the Redis port and the JDBC URL of the outbox's
 * PostgreSQL database (user {@code postgres}, no password).
 *
 * @author Redq team
 */
public final class ChaosRelay {

	private ChaosRelay() {
	}

	public static void main(String[] args) throws InterruptedException {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(ChaosSupport.LOOPBACK, Integer.parseInt(args[0])));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
				new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX));
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new Driver(), args[1], "postgres", "");
		// the relay only reads rows: it needs no job definitions
		JdbcJobOutbox outbox = new JdbcJobOutbox(new RedisJobDispatcher(operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return null;
			}

			@Override
			public Collection<JobDefinition> all() {
				return List.of();
			}

		}, JsonMapper.shared()), dataSource);
		JdbcOutboxRelay relay = new JdbcOutboxRelay(outbox, operations);
		relay.setPollInterval(Duration.ofMillis(100));
		relay.start();
		System.out.println("RELAY READY");
		Thread.currentThread().join();
	}

}
