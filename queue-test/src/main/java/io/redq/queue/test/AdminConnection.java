package io.redq.queue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import org.jspecify.annotations.Nullable;

/**
 * One Lettuce connection that sends administrative commands to a server and returns their
 * replies as text.
 * <p>
 * It connects on first use and again after the connection was lost (a killed or restarted
 * server), without reconnecting in the background: a command to a server that is down
 * fails at once instead of waiting for it.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class AdminConnection implements AutoCloseable {

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * Shared by every connection and never shut down (its threads are daemons), so that a
	 * cluster does not start threads per node and a closed connection cannot shut down
	 * threads that another one uses.
	 */
	private static final RedisClient CLIENT = client();

	private final String description;

	private final RedisURI uri;

	private @Nullable StatefulRedisConnection<String, String> connection;

	AdminConnection(String host, int port) {
		this.description = host + ":" + port;
		this.uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(COMMAND_TIMEOUT).build();
	}

	private static RedisClient client() {
		RedisClient client = RedisClient.create();
		// RESP2 keeps every reply a string, an integer or an array, as command()
		// describes
		client.setOptions(ClientOptions.builder()
			.protocolVersion(ProtocolVersion.RESP2)
			.autoReconnect(false)
			.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
			.build());
		return client;
	}

	/**
	 * Send one command and return its reply as text: simple strings, integers and bulk
	 * strings as they are, arrays (also nested ones) flattened and joined by
	 * {@code "\n"}, nil elements as empty strings.
	 * @param args the command and its arguments
	 * @return the reply, or {@code null} for a nil reply
	 * @throws IllegalStateException when Redis answers with an error
	 * @throws UncheckedIOException when the server cannot be reached or does not answer
	 */
	@Nullable String command(String... args) {
		CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
		for (int i = 1; i < args.length; i++) {
			arguments.add(args[i]);
		}
		try {
			return connection().sync().dispatch(new Keyword(args[0]), new TextOutput(), arguments);
		}
		catch (RedisCommandExecutionException ex) {
			throw new IllegalStateException("Redis error: " + ex.getMessage(), ex);
		}
		catch (RedisException ex) {
			disconnect();
			throw new UncheckedIOException(
					new IOException("Redis command " + String.join(" ", args) + " failed on " + this.description, ex));
		}
	}

	/** Drop the connection, so that the next command connects again. */
	synchronized void disconnect() {
		if (this.connection != null) {
			if (this.connection.isOpen()) {
				this.connection.closeAsync();
			}
			this.connection = null;
		}
	}

	@Override
	public void close() {
		disconnect();
	}

	private synchronized StatefulRedisConnection<String, String> connection() {
		if (this.connection == null || !this.connection.isOpen()) {
			disconnect();
			this.connection = CLIENT.connect(StringCodec.UTF8, this.uri);
		}
		return this.connection;
	}

	/** A command name that Lettuce need not know. */
	private record Keyword(String name) implements ProtocolKeyword {

		@Override
		public byte[] getBytes() {
			return this.name.getBytes(StandardCharsets.UTF_8);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** Collects a reply as the text that {@link AdminConnection#command} returns. */
	private static final class TextOutput extends CommandOutput<String, String, @Nullable String> {

		private final List<String> parts = new ArrayList<>();

		private boolean array;

		private boolean nil;

		TextOutput() {
			super(StringCodec.UTF8, null);
		}

		@Override
		public void set(@Nullable ByteBuffer bytes) {
			if (bytes == null && !this.array) {
				this.nil = true;
			}
			else {
				this.parts.add((bytes != null) ? decodeString(bytes) : "");
			}
		}

		@Override
		public void set(long integer) {
			this.parts.add(Long.toString(integer));
		}

		@Override
		public void multi(int count) {
			if (count < 0 && !this.array) {
				this.nil = true;
			}
			this.array = true;
		}

		@Override
		public @Nullable String get() {
			if (this.nil) {
				return null;
			}
			return (this.array || this.parts.isEmpty()) ? String.join("\n", this.parts) : this.parts.get(0);
		}

	}

}
