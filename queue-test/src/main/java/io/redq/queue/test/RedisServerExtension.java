package io.redq.queue.test;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;

/**
 * JUnit Jupiter extension that starts one {@link RedisServer} per test class, empties it
 * before each test and injects it as a parameter.
 * <p>
 * The server is kept in the class-level {@link ExtensionContext.Store}, which closes
 * {@link AutoCloseable} values when the class finishes. Nested classes find the enclosing
 * class's server because stores are looked up through parent contexts. When no Redis is
 * available the tests are aborted (skipped), except under the environment variable
 * {@code CI=true}, where they fail with a message that says what to install: a CI machine
 * without Redis must not pass green.
 *
 * @author Redq team
 * @since 0.1.0
 * @see WithRedis
 */
public class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisServerExtension.class);

	private static final String KEY = "server";

	private final Supplier<RedisServer> start;

	private final boolean ci;

	/**
	 * Create the extension that {@link WithRedis} registers: the server comes from
	 * {@link RedisServer#start()}, and the {@code CI} environment variable decides
	 * whether a missing Redis skips or fails.
	 */
	public RedisServerExtension() {
		this(RedisServer::start, isCi());
	}

	/** Create an extension with its own way to start a server; for tests. */
	RedisServerExtension(Supplier<RedisServer> start, boolean ci) {
		this.start = start;
		this.ci = ci;
	}

	/**
	 * Start the server of the test class, unless an enclosing class already has one.
	 * @param context the class-level context
	 */
	@Override
	public void beforeAll(ExtensionContext context) {
		startedServer(context);
	}

	/**
	 * Empty the server ({@code FLUSHALL}), so that each test starts without what an
	 * earlier one left; this runs before the test's {@code @BeforeEach} methods.
	 * @param context the test's context
	 */
	@Override
	public void beforeEach(ExtensionContext context) {
		startedServer(context).flushAll();
	}

	/**
	 * Whether the parameter is a {@link RedisServer}.
	 * @param parameterContext the parameter
	 * @param extensionContext the current context
	 * @return {@code true} for {@link RedisServer} parameters
	 */
	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == RedisServer.class;
	}

	/**
	 * The server of the current test class, started if needed (a constructor of a
	 * per-class test instance runs before {@code beforeAll}).
	 * @param parameterContext the parameter
	 * @param extensionContext the current context
	 * @return the server
	 */
	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return startedServer(extensionContext);
	}

	/**
	 * The server this extension started for the test class of the context, for other
	 * extensions that build on it (the server is started before any test method runs).
	 * @param context the context of a {@link WithRedis} test class or of one of its tests
	 * @return the server
	 * @throws IllegalStateException if the test class is not annotated with
	 * {@link WithRedis}
	 */
	public static RedisServer serverOf(ExtensionContext context) {
		RedisServer server = context.getStore(NAMESPACE).get(KEY, RedisServer.class);
		if (server == null) {
			throw new IllegalStateException(
					"No Redis server for " + context.getDisplayName() + ": annotate the test class with @WithRedis");
		}
		return server;
	}

	private RedisServer startedServer(ExtensionContext context) {
		ExtensionContext classContext = context;
		// Keep the server at class level, so that every method of the class shares it.
		while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
			classContext = classContext.getParent().get();
		}
		try {
			// The store also looks in parent contexts: a nested class gets its enclosing
			// class's server.
			return classContext.getStore(NAMESPACE).computeIfAbsent(KEY, (key) -> this.start.get(), RedisServer.class);
		}
		catch (RedisServer.UnavailableException ex) {
			throw unavailable(ex, this.ci);
		}
	}

	/**
	 * Whether the tests run on a CI machine, where a missing Redis must fail them.
	 * @return whether the environment variable {@code CI} is {@code true}
	 */
	static boolean isCi() {
		return "true".equalsIgnoreCase(System.getenv("CI"));
	}

	/**
	 * What to throw when no Redis could be found: an abort that skips the test, or under
	 * CI a failure.
	 * @param ex why no Redis could be found, with what to install
	 * @param ci whether the tests run on a CI machine
	 * @return the exception to throw
	 */
	static RuntimeException unavailable(RedisServer.UnavailableException ex, boolean ci) {
		if (ci) {
			return new IllegalStateException(
					ex.getMessage() + ". CI=true: tests that need Redis fail rather than " + "skip on a CI machine",
					ex);
		}
		return new TestAbortedException(ex.getMessage(), ex);
	}

}
