package io.redq.queue.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process on a loopback port and a data directory of the test's
 * own, which can be killed, stopped and restarted on the same port with the same data.
 * <p>
 * Unlike {@code io.redq.queue.test.RedisServer}, it takes extra server arguments (e.g.
 * {@code --appendonly yes --appendfsync always}) and outlives a restart.
 */
final class RedisProcess implements AutoCloseable {

	static final String LOOPBACK = "127.0.0.1";

	private final int port;

	private final Path directory;

	private final List<String> arguments;

	private Process process;

	private RedisProcess(int port, Path directory, List<String> arguments) {
		this.port = port;
		this.directory = directory;
		this.arguments = arguments;
		this.process = launch();
	}

	/**
	 * Start a server.
	 * @param directory its data directory
	 * @param arguments extra arguments, e.g. {@code "--appendonly", "yes"}
	 */
	static RedisProcess start(Path directory, String... arguments) {
		return new RedisProcess(freePort(), directory, List.of(arguments));
	}

	int port() {
		return this.port;
	}

	long pid() {
		return this.process.pid();
	}

	/** Kill with SIGKILL and wait until the process is gone. */
	void kill() {
		Signals.destroy(this.process);
	}

	/** Stop gracefully (SIGTERM: Redis writes its AOF and exits). */
	void shutdown() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				Signals.destroy(this.process);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Start again on the same port and data directory, and wait until it answers. */
	void restart() {
		Signals.destroy(this.process);
		this.process = launch();
	}

	void signal(String signal) {
		Signals.send(this.process.pid(), signal);
	}

	/** Send one command over a new connection; returns the first line of the reply. */
	String command(String... args) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(LOOPBACK, this.port), 1000);
			socket.setSoTimeout(5000);
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
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream line = new ByteArrayOutputStream();
			for (int b = in.read(); b != '\n'; b = in.read()) {
				if (b == -1) {
					throw new IOException("Connection closed");
				}
				if (b != '\r') {
					line.write(b);
				}
			}
			return line.toString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		Signals.destroy(this.process);
	}

	private Process launch() {
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(this.port), "--bind",
				LOOPBACK, "--save", "", "--daemonize", "no", "--dir", this.directory.toString()));
		command.addAll(this.arguments);
		Process started;
		try {
			started = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("redis.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start redis-server", ex);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (!started.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + started.exitValue() + ", see "
						+ this.directory.resolve("redis.log"));
			}
			try {
				if ("+PONG".equals(command("PING"))) {
					return started;
				}
			}
			catch (RuntimeException ex) {
				// not listening yet, or loading its AOF
			}
			sleep(20);
		}
		Signals.destroy(started);
		throw new IllegalStateException("redis-server did not answer on port " + this.port);
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
