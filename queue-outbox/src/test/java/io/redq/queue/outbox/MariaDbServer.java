package io.redq.queue.outbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server of the machine's installation (Debian's {@code mariadb-server}
 * package) started for the outbox tests on a free port of {@code 127.0.0.1} with a data
 * directory of its own, without grant tables (any user, no password), and deleted with
 * its data when closed. As root, the server runs as the {@code mysql} user the package
 * creates.
 *
 * @author Redq team
 */
final class MariaDbServer implements AutoCloseable {

	private static final String LOOPBACK = "127.0.0.1";

	private static final Path SERVER = Paths.get("/usr/sbin/mariadbd");

	private static final Path INSTALL = Paths.get("/usr/bin/mariadb-install-db");

	private final Process process;

	private final Path directory;

	private final int port;

	private MariaDbServer(Process process, Path directory, int port) {
		this.process = process;
		this.directory = directory;
		this.port = port;
	}

	/**
	 * Return whether MariaDB's server is installed.
	 * @return whether {@code mariadbd} and {@code mariadb-install-db} are there
	 */
	static boolean isAvailable() {
		return Files.isExecutable(SERVER) && Files.isExecutable(INSTALL);
	}

	/**
	 * Create a data directory, start a server on a free port and create the {@code redq}
	 * database.
	 * @return the running server
	 */
	static MariaDbServer start() {
		try {
			Path directory = Files.createTempDirectory("redq-mariadb-");
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
			Path data = directory.resolve("data");
			boolean root = "root".equals(System.getProperty("user.name"));
			List<String> user = root ? List.of("--user=mysql") : List.of();
			if (root) {
				run(List.of("chown", "-R", "mysql:mysql", directory.toString()));
			}
			List<String> install = new ArrayList<>(List.of(INSTALL.toString(), "--no-defaults", "--datadir=" + data,
					"--skip-test-db", "--auth-root-authentication-method=normal"));
			install.addAll(user);
			run(install);
			int port = freePort();
			List<String> command = new ArrayList<>(List.of(SERVER.toString(), "--no-defaults", "--datadir=" + data,
					"--port=" + port, "--bind-address=" + LOOPBACK, "--socket=" + directory.resolve("mariadb.sock"),
					"--pid-file=" + directory.resolve("mariadb.pid"), "--skip-grant-tables",
					"--innodb-flush-log-at-trx-commit=0", "--log-error=" + directory.resolve("error.log")));
			command.addAll(user);
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(directory.resolve("server.out").toFile())
				.start();
			MariaDbServer server = new MariaDbServer(process, directory, port);
			server.awaitStarted();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void awaitStarted() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		SQLException last = null;
		while (System.nanoTime() < deadline && this.process.isAlive()) {
			try (Connection connection = DriverManager.getConnection("jdbc:mariadb://" + LOOPBACK + ":" + this.port,
					"root", ""); Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE IF NOT EXISTS redq");
				return;
			}
			catch (SQLException ex) {
				last = ex;
			}
			try {
				// the server opens its port once its storage is ready
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		close();
		throw new IllegalStateException("MariaDB did not start on port " + this.port, last);
	}

	/**
	 * Return the JDBC URL of the server's {@code redq} database.
	 * @return the URL
	 */
	String jdbcUrl() {
		return "jdbc:mariadb://" + LOOPBACK + ":" + this.port + "/redq";
	}

	/**
	 * Stop the server and delete its data.
	 */
	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor();
			}
			try (Stream<Path> files = Files.walk(this.directory)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void run(List<String> command) throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		try {
			if (process.waitFor() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
			return socket.getLocalPort();
		}
	}

}
