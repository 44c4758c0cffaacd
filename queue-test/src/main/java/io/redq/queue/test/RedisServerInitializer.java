package io.redq.queue.test;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * Spring {@link ApplicationContextInitializer} that points a context at a real Redis
 * server for tests.
 * <p>
 * The server is started once per JVM and shared by every context that uses this
 * initializer; it is stopped by a JVM shutdown hook. The {@code spring.data.redis.host}
 * and {@code spring.data.redis.port} properties are added with the highest precedence.
 * Use it with {@code @ContextConfiguration(initializers = RedisServerInitializer.class)}
 * or {@code ApplicationContextRunner.withInitializer(new RedisServerInitializer())}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class RedisServerInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** Name of the property source added to the environment. */
	public static final String PROPERTY_SOURCE_NAME = "redqTestRedis";

	private static @Nullable RedisServer shared;

	/**
	 * The server shared by this JVM, started on first use.
	 * @return the server
	 * @throws IllegalStateException when no Redis is available (see
	 * {@link RedisServer#start()})
	 */
	public static synchronized RedisServer sharedServer() {
		RedisServer server = shared;
		if (server == null) {
			// RedisServer registers its own shutdown hook for what it starts.
			server = RedisServer.start();
			shared = server;
		}
		return server;
	}

	/**
	 * Add the shared server's host and port to the context's environment.
	 * @param applicationContext the context to initialize
	 */
	@Override
	public void initialize(ConfigurableApplicationContext applicationContext) {
		RedisServer server = sharedServer();
		Map<String, Object> properties = Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port",
				String.valueOf(server.port()));
		applicationContext.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
	}

}
