package io.redq.queue.test;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link PostgresServer}.
 *
 * @author Redq team
 */
class PostgresServerTests {

	@Test
	void listensOnLoopbackOnly() throws IOException {
		assumeTrue(PostgresServer.isAvailable(), "PostgreSQL's server binaries are not installed");
		Optional<InetAddress> external = externalAddress();
		assumeTrue(external.isPresent(), "this machine has no address but loopback");
		try (PostgresServer server = PostgresServer.start()) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5000);
			}
			assertThatIOException().isThrownBy(() -> {
				try (Socket socket = new Socket()) {
					socket.connect(new InetSocketAddress(external.get(), server.port()), 5000);
				}
			});
			assertThat(server.jdbcUrl()).contains("//127.0.0.1:" + server.port() + "/");
		}
	}

	static Optional<InetAddress> externalAddress() throws SocketException {
		return NetworkInterface.networkInterfaces().filter((network) -> {
			try {
				return network.isUp() && !network.isLoopback();
			}
			catch (SocketException ex) {
				return false;
			}
		}).flatMap(NetworkInterface::inetAddresses).filter(Inet4Address.class::isInstance).findFirst();
	}

}
