package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.script.QueueScripts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Integration tests of {@link ListenerOperations#reserveOnWakeUp}: the reservation an
 * idle container sends behind its wait for a wake-up.
 *
 * @author Redq team
 */
class ReserveOnWakeUpIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	@BeforeEach
	void loadTheScript() {
		// as a container's first reservation does, before it waits
		assertThat(this.listener.reserve(QUEUE, 10, LEASE).jobs()).isEmpty();
	}

	@Test
	void aJobDispatchedWhileItWaitsIsReservedAsTheWakeUpComes() throws Exception {
		try (RedisConnection connection = this.listener.openWakeUpConnection()) {
			CompletableFuture<Reservation> waiting = CompletableFuture
				.supplyAsync(() -> this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofSeconds(30)));
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients() == 1);
			enqueue("a");
			Reservation reservation = waiting.get();
			assertThat(reservation.jobs()).extracting(ReservedJob::id).containsExactly("a");
			// reserved under its lease
			assertThat(this.template.opsForHash().get(this.keys.leases(), "a"))
				.isEqualTo(reservation.jobs().get(0).token());
			assertThat(this.template.opsForZSet().score(this.keys.reserved(), "a"))
				.isEqualTo((double) reservation.redisTime() + LEASE.toMillis());
			assertThat(this.template.hasKey(this.keys.wake())).as("the wake-up was taken").isFalse();
		}
	}

	@Test
	void closingTheConnectionEndsTheWait() {
		RedisConnection connection = this.listener.openWakeUpConnection();
		CompletableFuture<Reservation> waiting = CompletableFuture
			.supplyAsync(() -> this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients() == 1);
		// as a container's stop does
		connection.close();
		assertThat(waiting).failsWithin(Duration.ofSeconds(10));
	}

	@Test
	void aClosedConnectionIsRefusedWithoutOpeningAnother() {
		RedisConnection connection = this.listener.openWakeUpConnection();
		// as a container's stop does just before the wait
		connection.close();
		long clients = clients("connected_clients");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofSeconds(1)))
			.withMessage("The wake-up connection is closed");
		assertThat(clients("connected_clients")).isEqualTo(clients);
	}

	@Test
	void aWaitThatEndsWithoutAWakeUpReservesWhatIsReady() {
		enqueue("a");
		this.template.delete(this.keys.wake());
		try (RedisConnection connection = this.listener.openWakeUpConnection()) {
			Reservation reservation = this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE,
					Duration.ofMillis(50));
			assertThat(reservation.jobs()).extracting(ReservedJob::id).containsExactly("a");
			assertThat(this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofMillis(50)).jobs())
				.isEmpty();
		}
	}

	@Test
	void aReservationAfterRedisLostItsScriptsLoadsTheScript() {
		enqueue("a");
		this.template.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		try (RedisConnection connection = this.listener.openWakeUpConnection()) {
			Reservation reservation = this.listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE,
					Duration.ofSeconds(10));
			assertThat(reservation.jobs()).extracting(ReservedJob::id).containsExactly("a");
		}
		assertThat(this.template.opsForHash().hasKey(this.keys.leases(), "a")).isTrue();
	}

	@Test
	void withJedisTheWaitOutlastsTheSocketTimeout() {
		JedisClientConfiguration client = JedisClientConfiguration.builder()
			.readTimeout(Duration.ofMillis(300))
			.build();
		JedisConnectionFactory connectionFactory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()), client);
		connectionFactory.afterPropertiesSet();
		try {
			ListenerOperations listener = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
					new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX))
				.getListenerOperations();
			try (RedisConnection connection = listener.openWakeUpConnection()) {
				long start = System.nanoTime();
				assertThat(listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofMillis(900)).jobs())
					.isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(800));
				enqueue("a");
				assertThat(listener.reserveOnWakeUp(connection, QUEUE, 10, LEASE, Duration.ofSeconds(5)).jobs())
					.extracting(ReservedJob::id)
					.containsExactly("a");
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

	private void enqueue(String id) {
		this.enqueuer.enqueue(QUEUE, List.of(new EnqueueCommand(id, Due.NOW, DuplicatePolicy.KEEP,
				Uniqueness.UNTIL_COMPLETED, "\"job\":\"test\",\"maxAttempts\":2,\"timeout\":0,\"payload\":\"x\"}")));
	}

	private long blockedClients() {
		return clients("blocked_clients");
	}

	private long clients(String field) {
		Properties clients = this.template
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("clients"));
		return Long.parseLong(clients.getProperty(field));
	}

}
