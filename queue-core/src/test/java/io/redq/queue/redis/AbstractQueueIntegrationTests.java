package io.redq.queue.redis;

import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Base class of the integration tests that use the library on a real Redis without an
 * application context: before each test it holds the class's Redis, the operations, their
 * enqueue and listener parts and a template that {@link RedisQueueExtension} gives that
 * test, and the keys of {@link #QUEUE}.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
public abstract class AbstractQueueIntegrationTests {

	/**
	 * The queue of the tests, whose keys {@link #keys} names.
	 */
	protected static final String QUEUE = "test";

	protected RedisServer redis;

	protected RedisJobQueueOperations operations;

	protected EnqueueOperations enqueuer;

	protected ListenerOperations listener;

	protected StringRedisTemplate template;

	protected QueueKeys keys;

	@BeforeEach
	void connect(RedisServer redis, RedisJobQueueOperations operations, StringRedisTemplate template) {
		this.redis = redis;
		this.operations = operations;
		this.enqueuer = operations.getEnqueueOperations();
		this.listener = operations.getListenerOperations();
		this.template = template;
		this.keys = operations.getStore().keys(QUEUE);
	}

}
