package io.redq.queue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A real, running Redis server for tests.
 * <p>
 * {@link #start()} resolves one in this order: the {@value #URL_VARIABLE} environment
 * variable (used as-is and never stopped, and emptied by {@link WithRedis} before each
 * test, so name a Redis you can throw away), else a {@code redis-server} process started
 * on a free port of {@code 127.0.0.1}, else a {@code redis:7} container when
 * Testcontainers is on the classpath and a Docker engine is available; it logs which
 * server and version it uses. The process runs the executable that
 * {@code REDQ_REDIS_SERVER} names (a path, or {@code embedded}), else
 * {@code redis-server} on the {@code PATH}, else the Redis 6.2 that
 * {@code com.github.codemonstur:embedded-redis} ships for Linux and macOS, so that Java
 * and Maven are all a build needs. {@link #local()} always starts a {@code redis-server}
 * process, with arguments and a data directory of the caller's choice, which a test can
 * then {@link #kill()}, {@link #shutdown()}, {@link #pause()}, {@link #resume()} and
 * {@link #restart()} on the same port with the same data. {@link #close()} stops whatever
 * this object started.
 *
 * @author Redq team
 * @since 0.1.0
 * @see RedisCluster
 * @see RedisSentinel
 */
public final class RedisServer implements AutoCloseable {

	/** Tells a developer how to get a Redis when none could be found. */
	static final String HOW_TO = "No Redis server available for tests: " + RedisExecutable.EMBEDDED_ARTIFACT
			+ " ships none for this platform, so install redis-server (e.g. apt-get install -y redis-server), "
			+ "or set " + RedisServer.URL_VARIABLE + "=redis://host:port, or run a Docker engine for Testcontainers";

	/** Tells a developer how to get a {@code redis-server} binary. */
	static final String HOW_TO_INSTALL = "No redis-server on the PATH, and " + RedisExecutable.EMBEDDED_ARTIFACT
			+ " ships none for this platform: install it (e.g. apt-get install -y redis-server)";

	/**
	 * The environment variable that names a Redis for tests, {@code redis://host:port}.
	 * Its name is Redq's own, not {@value #URL_VARIABLE}, which a developer's shell may
	 * set for an application's Redis: the tests empty the Redis it names.
	 */
	public static final String URL_VARIABLE = "REDQ_TEST_REDIS_URL";

	private static final System.Logger logger = System.getLogger(RedisServer.class.getName());

	private final String host;

	private final int port;

	private final @Nullable RedisProcess process;

	private final @Nullable Path ownDirectory;

	private final @Nullable Runnable containerStop;

	private final AdminConnection admin;

	private final @Nullable Thread shutdownHook;

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile @Nullable Runnable beforeShutdownStop;

	private RedisServer(String host, int port, @Nullable RedisProcess process, @Nullable Path ownDirectory,
			@Nullable Runnable containerStop) {
		this.host = host;
		this.port = port;
		this.process = process;
		this.ownDirectory = ownDirectory;
		this.containerStop = containerStop;
		this.admin = (process != null) ? process.admin() : new AdminConnection(host, port);
		// A server that nobody closes must not outlive the test JVM.
		if (process != null || containerStop != null) {
			this.shutdownHook = new Thread(this::stopOnShutdown, "redq-redis-stop-" + port);
			Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		}
		else {
			this.shutdownHook = null;
		}
	}

	/**
	 * Get a running Redis: {@value #URL_VARIABLE}, else a local {@code redis-server},
	 * else a Testcontainers container.
	 * @return the server, to be closed by the caller
	 * @throws IllegalStateException when none is available (the message says how to get
	 * one) or when a found one fails to start
	 */
	public static RedisServer start() {
		return start(url(System.getenv()), RedisExecutable.fromEnvironment(), true);
	}

	/**
	 * Return the URL of the Redis an environment names for tests: {@value #URL_VARIABLE}
	 * only, never {@code REDIS_URL}.
	 */
	static @Nullable String url(Map<String, String> environment) {
		String url = environment.get(URL_VARIABLE);
		if (url == null && environment.containsKey("REDIS_URL")) {
			logger.log(System.Logger.Level.INFO, "REDIS_URL is set, but tests use the Redis of " + URL_VARIABLE
					+ " only, which they empty: set it to a Redis you can throw away to use one");
		}
		return url;
	}

	/**
	 * Resolve a server from the given environment; package-private so that tests can
	 * exercise each branch.
	 */
	static RedisServer start(@Nullable String redisUrl, RedisExecutable executable, boolean tryTestcontainers) {
		RedisServer server;
		String origin;
		Path binary;
		if (redisUrl != null && !redisUrl.isBlank()) {
			server = at(redisUrl.trim());
			origin = URL_VARIABLE;
		}
		else if ((binary = executable.find()) != null) {
			server = local().executable(binary).start();
			origin = RedisExecutable.isShipped(binary)
					? "the redis-server that " + RedisExecutable.EMBEDDED_ARTIFACT + " ships" : binary.toString();
		}
		else if (tryTestcontainers && isTestcontainersPresent() && TestcontainersRedis.isDockerAvailable()) {
			server = TestcontainersRedis.start();
			origin = "a Testcontainers container";
		}
		else {
			throw new UnavailableException(HOW_TO);
		}
		logger.log(System.Logger.Level.INFO, "Redis {0} for tests on {1}, from {2}", versionOrWhyNot(server),
				server.url(), origin);
		return server;
	}

	private static String versionOrWhyNot(RedisServer server) {
		try {
			return server.version();
		}
		catch (RuntimeException ex) {
			// the variable may name a server that is not up yet: the tests will say so.
			return "(version unknown: " + ex.getMessage() + ")";
		}
	}

	/**
	 * Use a server that runs already, as {@value #URL_VARIABLE} names one;
	 * {@link #close()} leaves it running.
	 * @param url {@code redis://host:port}, without credentials or TLS
	 * @return the server
	 */
	public static RedisServer at(String url) {
		URI uri = URI.create(url);
		// Only what springProperties() can express is accepted, so a URL with credentials
		// or TLS fails here rather than with a confusing error later.
		if (!"redis".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getUserInfo() != null) {
			throw new IllegalStateException(
					URL_VARIABLE + " must look like redis://host:port (no credentials, no TLS), but was: " + url);
		}
		String host = uri.getHost();
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		return new RedisServer(host, (uri.getPort() != -1) ? uri.getPort() : 6379, null, null, null);
	}

	/**
	 * Prepare a {@code redis-server} process of the caller's own, whatever
	 * {@value #URL_VARIABLE} says.
	 * @return a builder; {@link Builder#start()} starts the server
	 */
	public static Builder local() {
		return new Builder();
	}

	/**
	 * Wrap a container that Testcontainers started; called by
	 * {@link TestcontainersRedis}.
	 */
	static RedisServer container(String host, int port, Runnable stop) {
		RedisServer server = new RedisServer(host, port, null, null, stop);
		try {
			server.awaitPong();
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
		return server;
	}

	/**
	 * Host name or address of the server.
	 * @return {@code "127.0.0.1"} for a local server
	 */
	public String host() {
		return this.host;
	}

	/**
	 * Port of the server.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * URL of the server.
	 * @return {@code redis://host:port}
	 */
	public String url() {
		String host = this.host.contains(":") ? "[" + this.host + "]" : this.host;
		return "redis://" + host + ":" + this.port;
	}

	/**
	 * Spring Boot properties that point Spring Data Redis at this server, for
	 * {@code ApplicationContextRunner.withPropertyValues(...)}.
	 * @return {@code spring.data.redis.host=...} and {@code spring.data.redis.port=...}
	 */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.host=" + this.host, "spring.data.redis.port=" + this.port };
	}

	/**
	 * The {@link #springProperties()} as command line arguments for
	 * {@code SpringApplication.run(...)}.
	 * @return each property prefixed with {@code --}
	 */
	public String[] commandLineArgs() {
		return Stream.of(springProperties()).map((property) -> "--" + property).toArray(String[]::new);
	}

	/**
	 * Version of the server, as {@code INFO server} reports it.
	 * @return e.g. {@code "7.0.15"}
	 */
	public String version() {
		String info = command("INFO", "server");
		return (info != null) ? info.lines()
			.filter((line) -> line.startsWith("redis_version:"))
			.map((line) -> line.substring("redis_version:".length()))
			.findFirst()
			.orElse("(unknown)") : "(unknown)";
	}

	/**
	 * Remove every key of every database, so that tests can reset state without a Redis
	 * client.
	 */
	public void flushAll() {
		command("FLUSHALL");
	}

	/**
	 * Send one command and return its reply as text.
	 * <p>
	 * Simple strings, integers and bulk strings are returned as they are, arrays are
	 * flattened and joined by {@code "\n"} (nil elements as empty strings). The commands
	 * share one connection, so a command that changes the state of its connection (such
	 * as {@code SELECT}) changes it for the commands after it.
	 * @param args the command and its arguments, e.g. {@code "INFO", "server"}
	 * @return the reply, or {@code null} for a nil reply (e.g. {@code GET} of a missing
	 * key)
	 * @throws IllegalStateException when Redis answers with an error
	 * @throws UncheckedIOException when the server cannot be reached
	 */
	public @Nullable String command(String... args) {
		return this.admin.command(args);
	}

	/**
	 * Whether this object started a {@code redis-server} process.
	 * @return {@code true} for a local process, {@code false} for {@value #URL_VARIABLE}
	 * or a container
	 */
	public boolean isLocalProcess() {
		return this.process != null;
	}

	/**
	 * Process id of the local {@code redis-server}.
	 * @return the id of the process running now
	 * @throws IllegalStateException when this is not a local process
	 */
	public long pid() {
		return process().pid();
	}

	/**
	 * Data directory of the local {@code redis-server}: its {@code redis.conf},
	 * {@code redis.log}, AOF and RDB files.
	 * @return the directory
	 * @throws IllegalStateException when this is not a local process
	 */
	public Path directory() {
		return process().directory();
	}

	/**
	 * Kill the local process at once ({@code kill -9}), as a crash would, and wait until
	 * it is gone.
	 * @throws IllegalStateException when this is not a local process
	 */
	public void kill() {
		process().kill();
	}

	/**
	 * Stop the local process gracefully ({@code SIGTERM}: Redis writes its data and
	 * exits) and wait until it is gone.
	 * @throws IllegalStateException when this is not a local process
	 */
	public void shutdown() {
		process().shutdown();
	}

	/**
	 * Start the local process again on the same port, with the same arguments and data
	 * directory, and wait until it has loaded its data; a process still running is killed
	 * first ({@link #shutdown()} first for a graceful restart).
	 * @throws IllegalStateException when this is not a local process
	 */
	public void restart() {
		process().restart();
	}

	/**
	 * Freeze the local process ({@code SIGSTOP}): it keeps its connections but answers
	 * nothing until {@link #resume()}.
	 * @throws IllegalStateException when this is not a local process
	 */
	public void pause() {
		process().signal("STOP");
	}

	/**
	 * Let a {@linkplain #pause() paused} local process run again ({@code SIGCONT}).
	 * @throws IllegalStateException when this is not a local process
	 */
	public void resume() {
		process().signal("CONT");
	}

	/**
	 * Set a step for the JVM shutdown hook to run before it stops this server, such as
	 * waiting until the application that uses the server has closed: the JVM runs its
	 * shutdown hooks at once, so without it Ctrl-C stops Redis while the application is
	 * still shutting down, and the application logs reconnect warnings. What the step
	 * throws is logged, and the server is stopped anyway. {@link #close()} does not run
	 * it.
	 * @param step what the shutdown hook runs first
	 */
	public void stopOnShutdownAfter(Runnable step) {
		this.beforeShutdownStop = step;
	}

	private void stopOnShutdown() {
		Runnable step = this.beforeShutdownStop;
		if (step != null) {
			try {
				step.run();
			}
			catch (RuntimeException ex) {
				logger.log(System.Logger.Level.WARNING, "Stopping " + this + " without its step before", ex);
			}
		}
		close();
	}

	/**
	 * Stop what this object started: the process (and its temporary directory) or the
	 * container. Idempotent; does nothing for a {@value #URL_VARIABLE} server.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		if (this.shutdownHook != null) {
			try {
				Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
			}
			catch (IllegalStateException ex) {
				// The JVM is shutting down (possibly in this very hook): nothing to
				// remove.
			}
		}
		if (this.process != null) {
			this.process.close();
		}
		else {
			this.admin.close();
		}
		if (this.ownDirectory != null) {
			deleteRecursively(this.ownDirectory);
		}
		if (this.containerStop != null) {
			this.containerStop.run();
		}
	}

	/**
	 * Describe this server for test reports.
	 * @return its URL and whether it is a local process
	 */
	@Override
	public String toString() {
		return "RedisServer[" + url() + (isLocalProcess() ? ", local process" : "") + "]";
	}

	private RedisProcess process() {
		if (this.process == null) {
			throw new IllegalStateException(this + " is not a process started by this JVM");
		}
		return this.process;
	}

	private void awaitPong() {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (true) {
			try {
				if ("PONG".equals(command("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Redis on " + url() + " did not answer within 10s", ex);
				}
			}
			RedisProcess.sleep(20);
		}
	}

	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		List<Path> paths = new ArrayList<>();
		try (Stream<Path> walk = Files.walk(directory)) {
			walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
		}
		catch (IOException ex) {
			return;
		}
		for (Path path : paths) {
			try {
				Files.deleteIfExists(path);
			}
			catch (IOException ex) {
				// Best effort: a leftover temporary file must not fail a test.
			}
		}
	}

	private static boolean isTestcontainersPresent() {
		try {
			Class.forName("org.testcontainers.containers.GenericContainer", false, RedisServer.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Builds a local {@code redis-server} process: on a free port of {@code 127.0.0.1},
	 * without persistence unless the arguments turn it on, in a temporary directory
	 * unless one is given.
	 */
	public static final class Builder {

		private final List<String> arguments = new ArrayList<>();

		private final List<String> configuration = new ArrayList<>();

		private @Nullable Path directory;

		private RedisExecutable executable = RedisExecutable.fromEnvironment();

		private @Nullable Path binary;

		private boolean cluster;

		private Builder() {
		}

		/**
		 * Add {@code redis-server} arguments, which override the defaults.
		 * @param arguments e.g. {@code "--appendonly", "yes", "--appendfsync", "always"}
		 * @return this builder
		 */
		public Builder arguments(String... arguments) {
			this.arguments.addAll(List.of(arguments));
			return this;
		}

		/**
		 * Set the data directory to use, which is created if needed and left in place by
		 * {@link RedisServer#close()}.
		 * <p>
		 * Default: a temporary directory, deleted on close.
		 * @param directory the directory
		 * @return this builder
		 */
		public Builder directory(Path directory) {
			this.directory = directory;
			return this;
		}

		/** Look for {@code redis-server} there; for tests. */
		Builder executable(RedisExecutable executable) {
			this.executable = executable;
			return this;
		}

		/** Run this {@code redis-server}. */
		Builder executable(Path binary) {
			this.binary = binary;
			return this;
		}

		/** Enable Redis Cluster, with a cluster bus port of its own. */
		Builder cluster() {
			this.cluster = true;
			return this;
		}

		/** Run as a Sentinel with these lines in its configuration file. */
		Builder sentinel(String... configuration) {
			this.configuration.addAll(List.of(configuration));
			this.arguments.add("--sentinel");
			return this;
		}

		/**
		 * Start the server and wait until it answers.
		 * @return the server, to be closed by the caller
		 * @throws IllegalStateException when it fails to start; without a
		 * {@code redis-server} (see {@link RedisServer}) the calling test is aborted, or
		 * fails under {@code CI=true}, with a message that says how to install it
		 */
		public RedisServer start() {
			Path binary = (this.binary != null) ? this.binary : this.executable.find();
			if (binary == null) {
				throw RedisServerExtension.unavailable(new UnavailableException(HOW_TO_INSTALL),
						RedisServerExtension.isCi());
			}
			Path own = null;
			Path directory;
			try {
				if (this.directory != null) {
					directory = Files.createDirectories(this.directory);
				}
				else {
					own = Files.createTempDirectory("redq-redis-");
					directory = own;
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot create a directory for redis-server", ex);
			}
			try {
				RedisProcess process = RedisProcess.start(binary, directory.toAbsolutePath(), this.configuration,
						this.arguments, this.cluster);
				return new RedisServer(RedisProcess.LOOPBACK, process.port(), process, own, null);
			}
			catch (RuntimeException ex) {
				if (own != null) {
					deleteRecursively(own);
				}
				throw ex;
			}
		}

	}

	/**
	 * Thrown when no Redis can be found at all, so that the JUnit extension can skip
	 * rather than fail (unless it runs under {@code CI=true}).
	 */
	static final class UnavailableException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		UnavailableException(String message) {
			super(message);
		}

	}

}
