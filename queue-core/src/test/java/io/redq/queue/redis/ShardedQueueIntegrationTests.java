package io.redq.queue.redis;

import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.JobRequest;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of a sharded queue on a single Redis, where its shards are distinct hash tags on
 * one server.
 *
 * @author Redq team
 */
@WithRedis
class ShardedQueueIntegrationTests extends AbstractShardedQueueIntegrationTests {

	private RedisServer redis;

	@BeforeEach
	void empty(RedisServer redis) {
		this.redis = redis;
		redis.command("FLUSHALL");
	}

	@Override
	LettuceConnectionFactory connectionFactory() {
		return TestConnections.connectionFactory(this.redis);
	}

	@Test
	void aShardNameIsNoQueueNameForTheCallers() {
		RedisJobQueueOperations operations = operations(3);
		assertThat(operations.getStore().keys(QUEUE + "{2}").ready()).startsWith("redq:shard:{" + QUEUE + "#");
		for (String name : List.of(QUEUE + "{3}", QUEUE + "{0}", QUEUE + "{x}")) {
			assertThatIllegalArgumentException().isThrownBy(() -> operations.pause(name))
				.withMessageContaining("Invalid queue name '" + name + "'");
		}
	}

	@Test
	void batchMembersAndChainStepsAreRefusedOnAShardedQueue() {
		RedisJobQueueOperations operations = operations(3);
		RedisJobDispatcher dispatcher = dispatcher(operations);
		assertThatIllegalArgumentException().isThrownBy(
				() -> dispatcher.dispatchBatch(BatchRequest.of(List.of(JobRequest.of("work", "a").build())).build()))
			.withMessageContaining("queue 'sharded', which is sharded");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> dispatcher.dispatchChain(
					ChainRequest.of(JobRequest.of("work", "a").build(), JobRequest.of("work", "b").build()).build()))
			.withMessageContaining("queue 'sharded', which is sharded");
		assertThat(operations.stats(QUEUE).ready()).isZero();
	}

	@Override
	boolean distinctOwners(QueueStore store, List<String> keys) {
		// one server owns every key
		return true;
	}

}
