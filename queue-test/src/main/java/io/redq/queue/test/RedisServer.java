package io.redq.queue.test;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A real, running Redis server for tests.
 * <p>
 * {@link #start()} resolves one in this order: the {@code REDIS_URL} environment variable
 * (used as-is and never stopped), else a {@code redis-server} binary on the {@code PATH}
 * started on a free port of {@code 127.0.0.1}, else a {@code redis:7} container when
 * Testcontainers is on the classpath and a Docker engine is available. {@link #close()}
 * stops whatever this object started.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class RedisServer implements AutoCloseable {

	/** Tells a developer how to get a Redis when none could be found. */
	static final String HOW_TO = "No Redis server available for tests: install redis-server "
			+ "(e.g. apt-get install -y redis-server), or set REDIS_URL=redis://host:port, "
			+ "or run a Docker engine for Testcontainers";

	private static final String LOOPBACK = "127.0.0.1";

	private static final int START_ATTEMPTS = 5;

	private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

	private static final int READ_TIMEOUT_MILLIS = 30_000;

	private final String host;

	private final int port;

	private final @Nullable Process process;

	private final @Nullable Path directory;

	private final @Nullable Runnable containerStop;

	private final @Nullable Thread shutdownHook;

	private final AtomicBoolean closed = new AtomicBoolean();

	private RedisServer(String host, int port, @Nullable Process process, @Nullable Path directory,
			@Nullable Runnable containerStop) {
		this.host = host;
		this.port = port;
		this.process = process;
		this.directory = directory;
		this.containerStop = containerStop;
		// A server that nobody closes must not outlive the test JVM.
		if (process != null || containerStop != null) {
			this.shutdownHook = new Thread(this::close, "redq-redis-stop-" + port);
			Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		}
		else {
			this.shutdownHook = null;
		}
	}

	/**
	 * Get a running Redis: {@code REDIS_URL}, else a local {@code redis-server}, else a
	 * Testcontainers container.
	 * @return the server, to be closed by the caller
	 * @throws IllegalStateException when none is available (the message says how to get
	 * one) or when a found one fails to start
	 */
	public static RedisServer start() {
		return start(System.getenv("REDIS_URL"), System.getenv("PATH"), true);
	}

	/**
	 * Resolve a server from the given environment; package-private so that tests can
	 * exercise each branch.
	 */
	static RedisServer start(@Nullable String redisUrl, @Nullable String path, boolean tryTestcontainers) {
		if (redisUrl != null && !redisUrl.isBlank()) {
			return external(redisUrl.trim());
		}
		Path binary = findOnPath("redis-server", path);
		if (binary != null) {
			return startLocal(binary);
		}
		if (tryTestcontainers && isTestcontainersPresent() && TestcontainersRedis.isDockerAvailable()) {
			return TestcontainersRedis.start();
		}
		throw new UnavailableException(HOW_TO);
	}

	/**
	 * Wrap a container that Testcontainers started; called by
	 * {@link TestcontainersRedis}.
	 */
	static RedisServer container(String host, int port, Runnable stop) {
		try {
			waitUntilReady(host, port, null);
		}
		catch (RuntimeException ex) {
			stop.run();
			throw ex;
		}
		return new RedisServer(host, port, null, null, stop);
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
	 * Remove every key of every database, so that tests can reset state without a Redis
	 * client.
	 */
	public void flushAll() {
		command("FLUSHALL");
	}

	/**
	 * Send one command over a new connection and return its reply as text.
	 * <p>
	 * Simple strings, integers and bulk strings are returned as they are, arrays are
	 * joined by {@code "\n"} (nil elements as empty strings).
	 * @param args the command and its arguments, e.g. {@code "INFO", "server"}
	 * @return the reply, or {@code null} for a nil reply (e.g. {@code GET} of a missing
	 * key)
	 * @throws IllegalStateException when Redis answers with an error
	 * @throws UncheckedIOException when the server cannot be reached
	 */
	public @Nullable String command(String... args) {
		try {
			return send(this.host, this.port, args);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis command " + String.join(" ", args) + " failed on " + url(), ex);
		}
	}

	/**
	 * Whether this object started a {@code redis-server} process.
	 * @return {@code true} for a local process, {@code false} for {@code REDIS_URL} or a
	 * container
	 */
	public boolean isLocalProcess() {
		return this.process != null;
	}

	/**
	 * Stop what this object started: the process (and its temporary directory) or the
	 * container. Idempotent; does nothing for a {@code REDIS_URL} server.
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
			stopProcess(this.process);
		}
		if (this.directory != null) {
			deleteRecursively(this.directory);
		}
		if (this.containerStop != null) {
			this.containerStop.run();
		}
	}

	/** The temporary directory of a local server; package-private for tests. */
	@Nullable Path directory() {
		return this.directory;
	}

	/**
	 * Describe this server for test reports.
	 * @return its URL and whether it is a local process
	 */
	@Override
	public String toString() {
		return "RedisServer[" + url() + (isLocalProcess() ? ", local process" : "") + "]";
	}

	private static RedisServer external(String redisUrl) {
		URI uri = URI.create(redisUrl);
		// Only what springProperties() and the raw client can express is accepted, so a
		// URL with credentials or TLS fails here rather than with a confusing error
		// later.
		if (!"redis".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getUserInfo() != null) {
			throw new IllegalStateException(
					"REDIS_URL must look like redis://host:port (no credentials, no TLS), but was: " + redisUrl);
		}
		String host = uri.getHost();
		if (host.startsWith("[") && host.endsWith("]")) {
			host = host.substring(1, host.length() - 1);
		}
		return new RedisServer(host, (uri.getPort() != -1) ? uri.getPort() : 6379, null, null, null);
	}

	private static @Nullable Path findOnPath(String name, @Nullable String path) {
		if (path == null) {
			return null;
		}
		for (String entry : path.split(File.pathSeparator)) {
			if (!entry.isEmpty()) {
				Path candidate = Path.of(entry, name);
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	private static RedisServer startLocal(Path binary) {
		Path directory;
		try {
			directory = Files.createTempDirectory("redq-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create a temporary directory for redis-server", ex);
		}
		Path log = directory.resolve("redis.log");
		String failure = "";
		for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
			int port = freePort();
			Process process;
			try {
				process = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", LOOPBACK,
						"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString())
					.directory(directory.toFile())
					.redirectErrorStream(true)
					.redirectOutput(log.toFile())
					.start();
			}
			catch (IOException ex) {
				deleteRecursively(directory);
				throw new IllegalStateException("Cannot run " + binary, ex);
			}
			try {
				waitUntilReady(LOOPBACK, port, process);
				return new RedisServer(LOOPBACK, port, process, directory, null);
			}
			catch (RuntimeException ex) {
				stopProcess(process);
				String tail = tail(log);
				failure = ex.getMessage() + "\n--- redis.log (tail) ---\n" + tail;
				// Another process may grab the free port before redis binds it: try
				// another one.
				if (!tail.contains("Address already in use")) {
					break;
				}
			}
		}
		deleteRecursively(directory);
		throw new IllegalStateException("Could not start " + binary + ": " + failure);
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot find a free port on " + LOOPBACK, ex);
		}
	}

	/**
	 * Wait until the server answers; for a local process, until it answers with that
	 * process's id, since another server may already listen on a port we raced for.
	 */
	private static void waitUntilReady(String host, int port, @Nullable Process process) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		String lastError = "no answer";
		while (System.nanoTime() < deadline) {
			if (process != null && !process.isAlive()) {
				throw new IllegalStateException("redis-server exited with code " + process.exitValue());
			}
			try {
				if (process == null) {
					if ("PONG".equals(send(host, port, "PING"))) {
						return;
					}
				}
				else {
					String info = send(host, port, "INFO", "server");
					if (info != null && info.lines().anyMatch(("process_id:" + process.pid())::equals)) {
						return;
					}
					lastError = "another server answers on port " + port;
				}
			}
			catch (IOException | IllegalStateException ex) {
				// Not listening yet, or still loading: try again shortly.
				lastError = ex.toString();
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for Redis on " + host + ":" + port, ex);
			}
		}
		throw new IllegalStateException("Redis on " + host + ":" + port + " did not answer within "
				+ START_TIMEOUT.toSeconds() + "s (" + lastError + ")");
	}

	private static @Nullable String send(String host, int port, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
			socket.setSoTimeout(READ_TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
				request.writeBytes(bytes);
				request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
			}
			out.write(request.toByteArray());
			out.flush();
			return readReply(socket.getInputStream());
		}
	}

	private static @Nullable String readReply(InputStream in) throws IOException {
		String line = readLine(in);
		if (line.isEmpty()) {
			throw new IOException("Empty reply line");
		}
		String rest = line.substring(1);
		switch (line.charAt(0)) {
			case '+', ':' -> {
				return rest;
			}
			case '-' -> throw new IllegalStateException("Redis error: " + rest);
			case '$' -> {
				int length = Integer.parseInt(rest);
				if (length < 0) {
					return null;
				}
				byte[] data = in.readNBytes(length);
				if (data.length < length) {
					throw new EOFException("Connection closed in a bulk reply");
				}
				readLine(in);
				return new String(data, StandardCharsets.UTF_8);
			}
			case '*' -> {
				int count = Integer.parseInt(rest);
				if (count < 0) {
					return null;
				}
				StringJoiner joined = new StringJoiner("\n");
				for (int i = 0; i < count; i++) {
					String element = readReply(in);
					joined.add((element != null) ? element : "");
				}
				return joined.toString();
			}
			default -> throw new IOException("Unexpected reply: " + line);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int current = in.read();
			if (current == -1) {
				throw new EOFException("Connection closed before the end of a reply");
			}
			if (previous == '\r' && current == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(current);
			previous = current;
		}
	}

	private static void stopProcess(Process process) {
		process.destroy();
		try {
			if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	private static String tail(Path log) {
		try {
			List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException | UncheckedIOException ex) {
			return "(no log: " + ex.getMessage() + ")";
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
	 * Thrown when no Redis can be found at all, so that the JUnit extension can skip
	 * rather than fail.
	 */
	static final class UnavailableException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		UnavailableException(String message) {
			super(message);
		}

	}

}
