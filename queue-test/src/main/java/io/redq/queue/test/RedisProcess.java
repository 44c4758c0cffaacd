package io.redq.queue.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process on a port of {@code 127.0.0.1} and a data directory,
 * which can be killed, stopped, signalled and started again on the same port with the
 * same data.
 * <p>
 * The first argument is always {@code redis.conf} in the data directory, written before
 * the first start: a Sentinel needs a configuration file that it can rewrite.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RedisProcess {

	static final String LOOPBACK = "127.0.0.1";

	private static final int START_ATTEMPTS = 5;

	private static final int CLUSTER_BUS_OFFSET = 10000;

	private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final Path binary;

	private final Path directory;

	private final List<String> arguments;

	private final int port;

	private Process process;

	private AdminConnection admin;

	private RedisProcess(Path binary, Path directory, List<String> arguments, int port, Process process,
			AdminConnection admin) {
		this.binary = binary;
		this.directory = directory;
		this.arguments = arguments;
		this.port = port;
		this.process = process;
		this.admin = admin;
	}

	/**
	 * Start a server on a free port, and try another one when some other process took the
	 * port first.
	 * @param binary the {@code redis-server} to run
	 * @param directory its data directory, which must exist
	 * @param configuration lines of its {@code redis.conf}
	 * @param arguments further arguments, after the defaults so that they can override
	 * them
	 * @param cluster whether to enable Redis Cluster, with a bus port of its own
	 * @return the running server
	 */
	static RedisProcess start(Path binary, Path directory, List<String> configuration, List<String> arguments,
			boolean cluster) {
		Path config = directory.resolve("redis.conf");
		try {
			Files.write(config, configuration, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write " + config, ex);
		}
		String failure = "";
		for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
			int port = cluster ? freePortWithFreeBusPort() : freePort();
			List<String> all = new ArrayList<>(List.of(config.toString(), "--port", Integer.toString(port), "--bind",
					LOOPBACK, "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString()));
			if (cluster) {
				all.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
			}
			all.addAll(arguments);
			long logStart = logSize(directory);
			AdminConnection admin = new AdminConnection(LOOPBACK, port);
			Process process = launch(binary, directory, all);
			try {
				awaitReady(process, admin, port);
				return new RedisProcess(binary, directory, all, port, process, admin);
			}
			catch (RuntimeException ex) {
				destroy(process);
				admin.close();
				String log = logSince(directory, logStart);
				failure = ex.getMessage() + "\n--- redis.log ---\n" + log;
				if (!log.contains("Address already in use")) {
					break;
				}
			}
		}
		throw new IllegalStateException("Could not start " + binary + ": " + failure);
	}

	int port() {
		return this.port;
	}

	long pid() {
		return this.process.pid();
	}

	Path directory() {
		return this.directory;
	}

	AdminConnection admin() {
		return this.admin;
	}

	/** Kill with SIGKILL and wait until the process is gone. */
	void kill() {
		this.admin.disconnect();
		destroy(this.process);
	}

	/** Stop with SIGTERM, so that Redis writes its data, and wait until it exits. */
	void shutdown() {
		this.admin.disconnect();
		this.process.destroy();
		try {
			if (!this.process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				destroy(this.process);
			}
		}
		catch (InterruptedException ex) {
			destroy(this.process);
			Thread.currentThread().interrupt();
		}
	}

	/** Start again on the same port and data directory, killing the process if alive. */
	void restart() {
		kill();
		Process process = launch(this.binary, this.directory, this.arguments);
		try {
			awaitReady(process, this.admin, this.port);
		}
		catch (RuntimeException ex) {
			destroy(process);
			throw new IllegalStateException(ex.getMessage() + "\n--- redis.log ---\n" + logSince(this.directory, 0),
					ex);
		}
		this.process = process;
	}

	/**
	 * Send a signal with the {@code kill} command.
	 * @param signal its name without {@code SIG}, e.g. {@code STOP}
	 */
	void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO()
				.start();
			if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Kill the process, also a stopped one, and close the connection. */
	void close() {
		destroy(this.process);
		this.admin.close();
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot find a free port on " + LOOPBACK, ex);
		}
	}

	/**
	 * A free port whose cluster bus port, port + 10000, is free too: Redis 6.2 has no
	 * {@code cluster-port} to choose another.
	 */
	private static int freePortWithFreeBusPort() {
		while (true) {
			int port = freePort();
			if (port + CLUSTER_BUS_OFFSET <= 65535 && isFree(port + CLUSTER_BUS_OFFSET)) {
				return port;
			}
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(LOOPBACK))) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static Process launch(Path binary, Path directory, List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(binary.toString());
		command.addAll(arguments);
		try {
			return new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + binary, ex);
		}
	}

	/**
	 * Wait until the server answers with this process's id (another server may listen on
	 * a port we raced for) and has loaded its data.
	 */
	private static void awaitReady(Process process, AdminConnection admin, int port) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		String lastError = "no answer";
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IllegalStateException("redis-server exited with code " + process.exitValue());
			}
			try {
				String info = admin.command("INFO", "server");
				if (info == null || info.lines().noneMatch(("process_id:" + process.pid())::equals)) {
					lastError = "another server answers on port " + port;
				}
				else if ("PONG".equals(admin.command("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not listening yet, or still loading its data
				lastError = ex.getMessage();
				admin.disconnect();
			}
			sleep(20);
		}
		throw new IllegalStateException("Redis on port " + port + " did not answer within " + START_TIMEOUT.toSeconds()
				+ "s (" + lastError + ")");
	}

	private static void destroy(Process process) {
		if (!process.isAlive()) {
			return;
		}
		process.destroyForcibly();
		try {
			process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static long logSize(Path directory) {
		try {
			return Files.exists(directory.resolve("redis.log")) ? Files.size(directory.resolve("redis.log")) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

	/** The last lines the server logged since an offset, for error messages. */
	private static String logSince(Path directory, long offset) {
		try (InputStream in = Files.newInputStream(directory.resolve("redis.log"))) {
			in.skipNBytes(offset);
			List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

}
