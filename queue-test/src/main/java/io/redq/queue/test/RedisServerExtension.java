package io.redq.queue.test;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that starts one {@link RedisServer} per test class and injects
 * it as a parameter.
 * <p>
 * The server is kept in the class-level {@link ExtensionContext.Store}, which closes
 * {@link AutoCloseable} values when the class finishes. Nested classes find the enclosing
 * class's server because stores are looked up through parent contexts. When no Redis is
 * available the tests are aborted (skipped), not failed.
 *
 * @author Redq team
 * @since 0.1.0
 * @see WithRedis
 */
public class RedisServerExtension implements BeforeAllCallback, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisServerExtension.class);

	private static final String KEY = "server";

	/**
	 * Start the server of the test class, unless an enclosing class already has one.
	 * @param context the class-level context
	 */
	@Override
	public void beforeAll(ExtensionContext context) {
		server(context);
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
		return server(extensionContext);
	}

	private static RedisServer server(ExtensionContext context) {
		ExtensionContext classContext = context;
		// Keep the server at class level, so that every method of the class shares it.
		while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
			classContext = classContext.getParent().get();
		}
		try {
			// The store also looks in parent contexts: a nested class gets its enclosing
			// class's server.
			return classContext.getStore(NAMESPACE)
				.computeIfAbsent(KEY, (key) -> RedisServer.start(), RedisServer.class);
		}
		catch (RedisServer.UnavailableException ex) {
			return Assumptions.abort(ex.getMessage());
		}
	}

}
