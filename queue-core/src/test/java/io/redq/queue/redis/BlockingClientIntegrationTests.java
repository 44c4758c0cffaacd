package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.DataModelMismatchException;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.script.QueueScripts;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that with a client without asynchronous commands (Jedis, on a pool of one
 * connection), the calls that wait for their reply with a timeout (dispatch, cancel,
 * reschedule) run before they return and give their connection back, whole, also when
 * they fail, against a real Redis.
 *
 * @author Redq team
 */
class BlockingClientIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private JedisConnectionFactory connectionFactory;

	private RedisJobQueueOperations jedisOperations;

	@BeforeEach
	void connectWithJedis() {
		GenericObjectPoolConfig<redis.clients.jedis.Jedis> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		// a call that waits for a second connection fails instead of hanging
		pool.setMaxWait(Duration.ofSeconds(2));
		JedisClientConfiguration client = JedisClientConfiguration.builder().usePooling().poolConfig(pool).build();
		this.connectionFactory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()), client);
		this.connectionFactory.setUseUnifiedJedis(false);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.jedisOperations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX));
	}

	@AfterEach
	void close() {
		this.connectionFactory.destroy();
	}

	@Test
	void callsThatWaitWithATimeoutRunOnThePoolsOneConnectionAndGiveItBackWhole() {
		EnqueueOperations enqueuer = this.jedisOperations.getEnqueueOperations();
		for (int i = 0; i < 3; i++) {
			String id = "j" + i;
			List<DispatchResult> results = enqueuer.enqueue(QUEUE,
					List.of(new EnqueueCommand(id, Due.after(Duration.ofHours(1)), DuplicatePolicy.KEEP,
							"\"job\":\"test\",\"maxAttempts\":1,\"payload\":" + i + "}")),
					TIMEOUT);
			assertThat(results).extracting(DispatchResult::outcome).containsExactly(Outcome.CREATED);
			assertThat(this.jedisOperations.reschedule(QUEUE, id, Due.after(Duration.ofHours(2)), TIMEOUT)).isTrue();
			assertThat(this.jedisOperations.cancel(QUEUE, id, TIMEOUT)).isTrue();
		}
		this.template.opsForValue().set(this.keys.model(), "99");
		assertThatExceptionOfType(DataModelMismatchException.class)
			.isThrownBy(() -> this.jedisOperations.cancel(QUEUE, "j0", TIMEOUT));
		this.template.opsForValue().set(this.keys.model(), "4");
		assertThat(this.jedisOperations.cancel(QUEUE, "j0", TIMEOUT)).isFalse();
	}

}
