package io.redq.queue.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL server of the machine's installation (Debian's {@code postgresql} package:
 * {@code /usr/lib/postgresql/<version>/bin}, or {@code initdb} on the {@code PATH})
 * started for tests on a free port of {@code 127.0.0.1} with a data directory of its own,
 * trusting local connections of the {@code postgres} user, and deleted with its data when
 * closed. {@code initdb} refuses to run as root: as root, the server runs as the
 * {@code postgres} operating system user the package creates.
 *
 * <pre class="code">
 * try (PostgresServer postgres = PostgresServer.start()) {
 *     // postgres.jdbcUrl(), or postgres.springProperties() for spring.datasource.*
 * }
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class PostgresServer implements AutoCloseable {

	private static final String LOOPBACK = "127.0.0.1";

	private static final String USER = "postgres";

	private static final int START_ATTEMPTS = 3;

	private final Path bin;

	private final Path directory;

	private final int port;

	private final Thread shutdownHook;

	private PostgresServer(Path bin, Path directory, int port) {
		this.bin = bin;
		this.directory = directory;
		this.port = port;
		this.shutdownHook = new Thread(this::stop, "postgres-server-stop");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Return the directory of the PostgreSQL binaries, or {@code null} when PostgreSQL is
	 * not installed.
	 * @return the directory holding {@code initdb}, {@code pg_ctl} and {@code postgres}
	 */
	public static @Nullable Path binaries() {
		Path versions = Paths.get("/usr/lib/postgresql");
		if (Files.isDirectory(versions)) {
			try (Stream<Path> dirs = Files.list(versions)) {
				Path newest = dirs.map((dir) -> dir.resolve("bin"))
					.filter((bin) -> Files.isExecutable(bin.resolve("initdb")))
					.max(Comparator.comparing((bin) -> versionOf(bin.getParent())))
					.orElse(null);
				if (newest != null) {
					return newest;
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		String path = System.getenv("PATH");
		return (path != null) ? Arrays.stream(path.split(File.pathSeparator))
			.map(Paths::get)
			.filter((dir) -> Files.isExecutable(dir.resolve("initdb")) && Files.isExecutable(dir.resolve("pg_ctl")))
			.findFirst()
			.orElse(null) : null;
	}

	private static int versionOf(Path dir) {
		try {
			return Integer.parseInt(dir.getFileName().toString().replaceAll("\\..*", ""));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * Return whether PostgreSQL is installed, so that {@link #start()} can run it.
	 * @return whether the binaries are there
	 */
	public static boolean isAvailable() {
		return binaries() != null;
	}

	/**
	 * Create a data directory and start a server on a free port.
	 * @return the running server
	 * @throws IllegalStateException when PostgreSQL is not installed or does not start
	 */
	public static PostgresServer start() {
		Path bin = binaries();
		if (bin == null) {
			throw new IllegalStateException("PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin "
					+ "or on the PATH. Install it, e.g. 'apt-get install -y postgresql'");
		}
		try {
			Path directory = Files.createTempDirectory("redq-postgres-");
			// the postgres user must reach the data directory inside
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
			Path data = directory.resolve("data");
			Files.createDirectory(data);
			if (isRoot()) {
				run(List.of("chown", "-R", USER + ":" + USER, directory.toString()));
			}
			run(asServerUser(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust", "-E",
					"UTF8", "--no-sync"));
			IllegalStateException failure = null;
			for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
				int port = freePort();
				try {
					run(asServerUser(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
							directory.resolve("server.log").toString(), "-w", "-t", "60", "-o",
							"-p " + port + " -c listen_addresses=" + LOOPBACK
									+ " -c unix_socket_directories='' -c fsync=off -c max_connections=200",
							"start"));
					return new PostgresServer(bin, directory, port);
				}
				catch (IllegalStateException ex) {
					// another process may have taken the port meanwhile
					failure = ex;
				}
			}
			throw failure;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the JDBC URL of the server's {@code postgres} database.
	 * @return the URL
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://" + LOOPBACK + ":" + this.port + "/postgres";
	}

	/**
	 * Return the user to connect as, without a password.
	 * @return {@code postgres}
	 */
	public String username() {
		return USER;
	}

	/**
	 * Return the {@code spring.datasource.*} properties that connect an application to
	 * this server.
	 * @return the properties, as {@code name=value}
	 */
	public String[] springProperties() {
		return new String[] { "spring.datasource.url=" + jdbcUrl(), "spring.datasource.username=" + USER };
	}

	/**
	 * Stop the server at once and delete its data.
	 */
	@Override
	public void close() {
		stop();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// shutting down: the hook runs
		}
	}

	private void stop() {
		if (!Files.isDirectory(this.directory)) {
			return;
		}
		try {
			run(asServerUser(this.bin.resolve("pg_ctl").toString(), "-D", this.directory.resolve("data").toString(),
					"-m", "immediate", "-w", "stop"));
		}
		finally {
			delete(this.directory);
		}
	}

	@Override
	public String toString() {
		return "PostgreSQL at " + jdbcUrl() + " (" + this.directory + ")";
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static List<String> asServerUser(String... command) {
		List<String> line = new ArrayList<>();
		if (isRoot()) {
			line.addAll(List.of("runuser", "-u", USER, "--"));
		}
		line.addAll(List.of(command));
		return line;
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(
						"Command " + command + " failed: " + new String(output, StandardCharsets.UTF_8));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
			return socket.getLocalPort();
		}
	}

	private static void delete(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// left for the system's temporary files cleanup
		}
	}

}
