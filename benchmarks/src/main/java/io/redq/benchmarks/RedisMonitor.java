package io.redq.benchmarks;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * A {@code MONITOR} connection of the harness's own: each command Redis runs, with the
 * wall-clock time in microseconds Redis stamped it with ({@code gettimeofday}; Redis 7.0
 * stamps a command as it starts, so a script's line comes before the lines of the
 * commands it calls, and a blocking command's when it blocks). The harness reads it only
 * between measurements: no thread of this JVM wakes for its lines while a job is
 * measured, and the lines wait in the socket meanwhile.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class RedisMonitor implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final ByteArrayOutputStream partial = new ByteArrayOutputStream(512);

	private RedisMonitor(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
	}

	/**
	 * Connect and send {@code MONITOR}.
	 * @param host the host of Redis
	 * @param port its port
	 * @return the connection, its {@code OK} read
	 */
	static RedisMonitor open(String host, int port) {
		try {
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress(host, port), 2000);
			socket.setTcpNoDelay(true);
			socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			RedisMonitor monitor = new RedisMonitor(socket);
			String ok = monitor.readLine(2000);
			if (!"+OK".equals(ok)) {
				monitor.close();
				throw new IllegalStateException("MONITOR answered " + ok);
			}
			return monitor;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the time now on the clock of {@code MONITOR}'s stamps: the wall clock, in
	 * microseconds since the epoch ({@link Instant#now()} reads it to the nanosecond on
	 * Linux since Java 15).
	 * @return the microseconds
	 */
	static long now() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
	}

	/**
	 * Read lines until one matches.
	 * @param wanted the line wanted
	 * @param timeoutMillis how long to read at most
	 * @return the line, or {@code null} when none came within the timeout
	 */
	@Nullable Line next(Predicate<Line> wanted, int timeoutMillis) {
		// other clients' commands keep coming: the timeout bounds the whole search
		long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
		long left;
		while ((left = (deadline - System.nanoTime()) / 1_000_000) > 0) {
			String text = readLine((int) left);
			if (text == null) {
				return null;
			}
			Line line = Line.parse(text);
			if (line != null && wanted.test(line)) {
				return line;
			}
		}
		return null;
	}

	/**
	 * Read one line; a line cut by the timeout is kept for the next call.
	 */
	private @Nullable String readLine(int timeoutMillis) {
		try {
			this.socket.setSoTimeout(timeoutMillis);
			int read;
			while ((read = this.in.read()) != -1) {
				if (read == '\n') {
					String line = this.partial.toString(StandardCharsets.US_ASCII).stripTrailing();
					this.partial.reset();
					return line;
				}
				this.partial.write(read);
			}
			throw new IllegalStateException("MONITOR connection closed");
		}
		catch (SocketTimeoutException ex) {
			return null;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// nothing to do
		}
	}

	/**
	 * One command as {@code MONITOR} shows it.
	 *
	 * @param micros when Redis stamped it, microseconds since the epoch
	 * @param client the client's address ({@code 127.0.0.1:54321}), or {@code lua} for a
	 * command a script called
	 * @param text the command and its arguments, each quoted
	 */
	record Line(long micros, String client, String text) {

		/**
		 * Parse {@code +1732751234.123456 [0 127.0.0.1:54321] "EVALSHA" "..."}.
		 */
		static @Nullable Line parse(String line) {
			int space = line.indexOf(' ');
			int open = line.indexOf('[');
			int close = line.indexOf(']');
			if (!line.startsWith("+") || space < 0 || open < 0 || close < open) {
				return null;
			}
			String stamp = line.substring(1, space);
			int dot = stamp.indexOf('.');
			long micros = Long.parseLong(stamp.substring(0, dot)) * 1_000_000
					+ Long.parseLong(stamp.substring(dot + 1));
			String client = line.substring(line.indexOf(' ', open) + 1, close);
			return new Line(micros, client, line.substring(close + 1).trim());
		}

		boolean isScriptCall() {
			return !this.client.equals("lua")
					&& (this.text.startsWith("\"EVALSHA\"") || this.text.startsWith("\"evalsha\"")
							|| this.text.startsWith("\"EVAL\"") || this.text.startsWith("\"eval\""));
		}

		/**
		 * Return the client's port.
		 * @return the port, or -1 for a script's command or a Unix socket
		 */
		int port() {
			int colon = this.client.lastIndexOf(':');
			try {
				return (colon < 0) ? -1 : Integer.parseInt(this.client.substring(colon + 1));
			}
			catch (NumberFormatException ex) {
				return -1;
			}
		}

	}

}
