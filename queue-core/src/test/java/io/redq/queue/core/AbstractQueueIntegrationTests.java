package io.redq.queue.core;

import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Base class of the integration tests that call one queue's scripts directly: before each
 * test it holds the class's Redis, the operations, their enqueue and listener parts and a
 * template that {@link RedisQueueExtension} gives that test, and the keys of the queue.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
public abstract class AbstractQueueIntegrationTests {

	private final String queue;

	protected RedisServer redis;

	protected RedisJobQueueOperations operations;

	protected EnqueueOperations enqueuer;

	protected ListenerOperations listener;

	protected StringRedisTemplate template;

	protected QueueKeys keys;

	/**
	 * Create a test of the given queue.
	 * @param queue the queue whose keys {@link #keys} names
	 */
	protected AbstractQueueIntegrationTests(String queue) {
		this.queue = queue;
	}

	@BeforeEach
	void connect(RedisServer redis, RedisJobQueueOperations operations, StringRedisTemplate template) {
		this.redis = redis;
		this.operations = operations;
		this.enqueuer = operations.getEnqueueOperations();
		this.listener = operations.getListenerOperations();
		this.template = template;
		this.keys = operations.getStore().keys(this.queue);
	}

}
