package io.redq.queue.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy in front of Redis, inside the test JVM, that can reset connections, drop a
 * reply after Redis executed the command, delay and blackhole. One thread per direction
 * per connection; loopback only.
 */
final class ChaosProxy implements AutoCloseable {

	private final int targetPort;

	private final ServerSocket server;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean dropNextReply = new AtomicBoolean();

	private final AtomicReference<byte @Nullable []> dropReplyTo = new AtomicReference<>();

	private final AtomicReference<byte @Nullable []> dropRequest = new AtomicReference<>();

	private final AtomicInteger droppedRequests = new AtomicInteger();

	private final AtomicInteger droppedReplies = new AtomicInteger();

	private final AtomicInteger resets = new AtomicInteger();

	private volatile long delayMillis;

	private volatile boolean blackhole;

	private volatile boolean closed;

	ChaosProxy(int targetPort) {
		this.targetPort = targetPort;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getByName(ChaosSupport.LOOPBACK));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "chaos-proxy-accept-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * The next reply from Redis is swallowed and its connection reset: Redis did the
	 * work.
	 */
	void dropNextReply() {
		this.dropNextReply.set(true);
	}

	/**
	 * The reply to the next request that contains the given text (e.g. a script's SHA1)
	 * is swallowed and its connection reset.
	 */
	void dropReplyTo(String text) {
		this.dropReplyTo.set(text.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * The next request that contains the given text is not forwarded, and its connection
	 * is reset: Redis never sees it.
	 */
	void dropRequest(String text) {
		this.dropRequest.set(text.getBytes(StandardCharsets.UTF_8));
	}

	int droppedRequests() {
		return this.droppedRequests.get();
	}

	/** Reset (RST) every open connection. */
	void resetAll() {
		for (Link link : this.links) {
			link.reset();
		}
	}

	void delay(long millis) {
		this.delayMillis = millis;
	}

	void blackhole(boolean on) {
		this.blackhole = on;
	}

	int droppedReplies() {
		return this.droppedReplies.get();
	}

	int resets() {
		return this.resets.get();
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		resetAll();
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(ChaosSupport.LOOPBACK, this.targetPort), 2000);
				Link link = new Link(client, upstream);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				if (this.closed) {
					return;
				}
			}
		}
	}

	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private final AtomicBoolean open = new AtomicBoolean(true);

		private final AtomicBoolean dropReply = new AtomicBoolean();

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() throws IOException {
			pump(this.client.getInputStream(), this.upstream.getOutputStream(), false);
			pump(this.upstream.getInputStream(), this.client.getOutputStream(), true);
		}

		private void pump(InputStream in, OutputStream out, boolean replies) {
			Thread thread = new Thread(() -> {
				byte[] buffer = new byte[16384];
				try {
					for (int read = in.read(buffer); read != -1; read = in.read(buffer)) {
						while (ChaosProxy.this.blackhole && this.open.get()) {
							Thread.sleep(10);
						}
						if (ChaosProxy.this.delayMillis > 0) {
							Thread.sleep(ChaosProxy.this.delayMillis);
						}
						byte[] lost = ChaosProxy.this.dropRequest.get();
						if (!replies && lost != null && contains(buffer, read, lost)
								&& ChaosProxy.this.dropRequest.compareAndSet(lost, null)) {
							ChaosProxy.this.droppedRequests.incrementAndGet();
							reset();
							return;
						}
						byte[] marker = ChaosProxy.this.dropReplyTo.get();
						if (!replies && marker != null && contains(buffer, read, marker)
								&& ChaosProxy.this.dropReplyTo.compareAndSet(marker, null)) {
							this.dropReply.set(true);
						}
						if (replies
								&& (ChaosProxy.this.dropNextReply.compareAndSet(true, false) || this.dropReply.get())) {
							ChaosProxy.this.droppedReplies.incrementAndGet();
							reset();
							return;
						}
						out.write(buffer, 0, read);
						out.flush();
					}
				}
				catch (IOException | InterruptedException ex) {
					// reset or closed
				}
				reset();
			}, "chaos-proxy-" + (replies ? "reply" : "request"));
			thread.setDaemon(true);
			thread.start();
		}

		private static boolean contains(byte[] buffer, int length, byte[] marker) {
			for (int i = 0; i + marker.length <= length; i++) {
				if (Arrays.equals(buffer, i, i + marker.length, marker, 0, marker.length)) {
					return true;
				}
			}
			return false;
		}

		void reset() {
			if (!this.open.compareAndSet(true, false)) {
				return;
			}
			ChaosProxy.this.links.remove(this);
			ChaosProxy.this.resets.incrementAndGet();
			for (Socket socket : new Socket[] { this.client, this.upstream }) {
				try {
					socket.setSoLinger(true, 0);
					socket.close();
				}
				catch (IOException ex) {
					// already closed
				}
			}
		}

	}

}
