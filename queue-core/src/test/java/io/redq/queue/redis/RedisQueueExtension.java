package io.redq.queue.redis;

import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServerExtension;
import io.redq.queue.test.TestConnections;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * JUnit Jupiter extension for tests that use the library without an application context:
 * each test of a {@link WithRedis} class gets, as parameters of its test and
 * {@code @BeforeEach} methods, {@link RedisJobQueueOperations} (key prefix
 * {@value RedisJobQueueOperations#DEFAULT_KEY_PREFIX}), a {@link StringRedisTemplate} and
 * their {@link RedisConnectionFactory}, on one connection to the class's server, which
 * {@link WithRedis} empties before each test. The connection is closed after the test's
 * {@code @AfterEach} methods, so that those can still stop what uses it.
 *
 * @author Redq team
 */
public class RedisQueueExtension implements ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisQueueExtension.class);

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisJobQueueOperations.class || type == StringRedisTemplate.class
				|| type == RedisConnectionFactory.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		if (extensionContext.getTestMethod().isEmpty()) {
			// a class-level context would share one connection between the tests
			throw new ParameterResolutionException(parameterContext.getParameter().getType().getSimpleName()
					+ " is given per test: take it in a @BeforeEach or @Test method, not in "
					+ parameterContext.getDeclaringExecutable());
		}
		Connection connection = extensionContext.getStore(NAMESPACE)
			.computeIfAbsent(Connection.class, (key) -> Connection.open(extensionContext), Connection.class);
		Class<?> type = parameterContext.getParameter().getType();
		if (type == RedisConnectionFactory.class) {
			return connection.connectionFactory();
		}
		return (type == StringRedisTemplate.class) ? connection.template() : connection.operations();
	}

	/**
	 * One test's connection, closed by the store when the test finishes.
	 */
	private record Connection(LettuceConnectionFactory connectionFactory, RedisJobQueueOperations operations,
			StringRedisTemplate template) implements AutoCloseable {

		static Connection open(ExtensionContext context) {
			LettuceConnectionFactory connectionFactory = TestConnections
				.connectionFactory(RedisServerExtension.serverOf(context));
			return new Connection(connectionFactory,
					new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
							new Keyspace(RedisJobQueueOperations.DEFAULT_KEY_PREFIX)),
					new StringRedisTemplate(connectionFactory));
		}

		@Override
		public void close() {
			this.connectionFactory.destroy();
		}

	}

}
