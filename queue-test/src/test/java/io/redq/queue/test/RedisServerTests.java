package io.redq.queue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link RedisServer}.
 *
 * @author Redq team
 */
class RedisServerTests {

	@Test
	void closeStopsALocalServer() {
		RedisServer server = RedisServer.start(null, RedisExecutable.fromEnvironment(), false);
		int port = server.port();
		Path directory = server.directory();
		assertThat(server.isLocalProcess()).isTrue();
		assertThat(server.command("PING")).isEqualTo("PONG");
		assertThat(directory).isNotNull().isDirectory();
		assertThat(directory.resolve("redis.log")).exists();
		server.close();
		assertThat(isListening(port)).isFalse();
		assertThat(Files.exists(directory)).isFalse();
		// Idempotent.
		server.close();
	}

	@Test
	void aLocalServerListensOnLoopbackOnly() throws IOException {
		Optional<InetAddress> external = PostgresServerTests.externalAddress();
		assumeTrue(external.isPresent(), "this machine has no address but loopback");
		try (RedisServer server = RedisServer.local().start()) {
			assertThat(server.command("PING")).isEqualTo("PONG");
			assertThatIOException().isThrownBy(() -> {
				try (Socket socket = new Socket()) {
					socket.connect(new InetSocketAddress(external.get(), server.port()), 5000);
				}
			});
		}
	}

	@Test
	void twoLocalServersGetDifferentPorts() {
		try (RedisServer first = RedisServer.start(null, RedisExecutable.fromEnvironment(), false);
				RedisServer second = RedisServer.start(null, RedisExecutable.fromEnvironment(), false)) {
			assertThat(first.port()).isNotEqualTo(second.port());
			first.command("SET", "k", "first");
			assertThat(second.command("GET", "k")).isNull();
		}
	}

	@Test
	void redisUrlIsUsedAsIsAndNeverStopped() {
		try (RedisServer local = RedisServer.start(null, RedisExecutable.fromEnvironment(), false)) {
			RedisServer external = RedisServer.start(" redis://127.0.0.1:" + local.port() + " ", null, false);
			assertThat(external.isLocalProcess()).isFalse();
			assertThat(external.host()).isEqualTo("127.0.0.1");
			assertThat(external.port()).isEqualTo(local.port());
			assertThat(external.url()).isEqualTo(local.url());
			assertThat(external.command("PING")).isEqualTo("PONG");
			external.close();
			assertThat(local.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void anApplicationsRedisUrlIsNeverUsedForTests() {
		assertThat(RedisServer.url(Map.of("REDIS_URL", "redis://127.0.0.1:6379"))).isNull();
		assertThat(RedisServer
			.url(Map.of("REDIS_URL", "redis://127.0.0.1:6379", "REDQ_TEST_REDIS_URL", "redis://127.0.0.1:6380")))
			.isEqualTo("redis://127.0.0.1:6380");
	}

	@Test
	void redisUrlWithoutPortDefaultsTo6379() {
		RedisServer external = RedisServer.start("redis://example.invalid", null, false);
		assertThat(external.port()).isEqualTo(6379);
		assertThat(external.host()).isEqualTo("example.invalid");
	}

	@Test
	void redisUrlWithCredentialsIsRejected() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisServer.start("redis://user:secret@127.0.0.1:6380", null, false))
			.withMessageContaining("REDQ_TEST_REDIS_URL");
	}

	@Test
	void noRedisSaysHowToGetOne(@TempDir Path emptyDirectory) {
		assertThatExceptionOfType(RedisServer.UnavailableException.class)
			.isThrownBy(() -> RedisServer.start(null, onlyOnPath(emptyDirectory), false))
			.withMessageContaining("apt-get install -y redis-server")
			.withMessageContaining("REDQ_TEST_REDIS_URL=redis://host:port")
			.withMessageContaining("Docker engine for Testcontainers");
	}

	@Test
	void failedStartReportsTheLogTail(@TempDir Path directory) throws IOException {
		// A fake redis-server that fails the way a misconfigured one would.
		Path fake = directory.resolve("redis-server");
		Files.writeString(fake, "#!/bin/sh\necho 'FATAL: fake failure'\nexit 1\n");
		assertThat(fake.toFile().setExecutable(true)).isTrue();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisServer.start(null, onlyOnPath(directory), false))
			.isNotInstanceOf(RedisServer.UnavailableException.class)
			.withMessageContaining("exited with code 1")
			.withMessageContaining("FATAL: fake failure");
	}

	@Test
	void portRaceIsRetriedOnAnotherPort(@TempDir Path directory) throws IOException {
		// The first run loses the race for its port, as if another process bound it
		// first.
		Path fake = directory.resolve("redis-server");
		Files.writeString(fake,
				"#!/bin/sh\nif [ ! -f '" + directory.resolve("lost") + "' ]; then\n  touch '"
						+ directory.resolve("lost") + "'\n  echo 'bind: Address already in use'\n  exit 1\nfi\nexec "
						+ findRedisServer() + " \"$@\"\n");
		assertThat(fake.toFile().setExecutable(true)).isTrue();
		try (RedisServer server = RedisServer.start(null, onlyOnPath(directory), false)) {
			assertThat(Files.exists(directory.resolve("lost"))).isTrue();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void localServerTakesArgumentsAndKeepsItsDataOverAKillAndARestart(@TempDir Path directory) {
		try (RedisServer server = RedisServer.local()
			.arguments("--appendonly", "yes", "--appendfsync", "always")
			.directory(directory)
			.start()) {
			assertThat(server.isLocalProcess()).isTrue();
			assertThat(server.directory()).isEqualTo(directory.toAbsolutePath());
			assertThat(server.command("CONFIG", "GET", "appendfsync")).isEqualTo("appendfsync\nalways");
			int port = server.port();
			long pid = server.pid();
			server.command("SET", "k", "v");
			server.kill();
			assertThat(isListening(port)).isFalse();
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.pid()).isNotEqualTo(pid);
			assertThat(server.command("GET", "k")).isEqualTo("v");
			server.command("SET", "k", "w");
			server.shutdown();
			assertThat(isListening(port)).isFalse();
			server.restart();
			assertThat(server.command("GET", "k")).isEqualTo("w");
		}
		assertThat(directory.resolve("redis.log")).exists();
	}

	@Test
	void restartOfARunningServerStartsANewProcessOnTheSamePort() {
		try (RedisServer server = RedisServer.local().start()) {
			long pid = server.pid();
			server.restart();
			assertThat(server.pid()).isNotEqualTo(pid);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void pausedServerAnswersNothingUntilResumed() throws IOException {
		try (RedisServer server = RedisServer.local().start()) {
			server.pause();
			try (Socket socket = new Socket("127.0.0.1", server.port())) {
				socket.setSoTimeout(500);
				socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.UTF_8));
				assertThatExceptionOfType(SocketTimeoutException.class)
					.isThrownBy(() -> socket.getInputStream().read());
				server.resume();
				socket.setSoTimeout(10_000);
				assertThat(new String(socket.getInputStream().readNBytes(7), StandardCharsets.UTF_8))
					.isEqualTo("+PONG\r\n");
			}
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void closeKillsAPausedServer() {
		RedisServer server = RedisServer.local().start();
		server.pause();
		server.close();
		assertThat(isListening(server.port())).isFalse();
	}

	@Test
	void onlyALocalProcessCanBeKilled() {
		try (RedisServer local = RedisServer.local().start()) {
			RedisServer external = RedisServer.at(local.url());
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(external::kill)
				.withMessageContaining("not a process started by this JVM");
			assertThat(local.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void localServerWithoutRedisServerSaysHowToInstallItAndFailsTheTestOnlyUnderCi(@TempDir Path emptyDirectory) {
		// aborted (skipped) on a developer's machine, failed on CI, as @WithRedis does
		Class<? extends Throwable> expected = RedisServerExtension.isCi() ? IllegalStateException.class
				: TestAbortedException.class;
		assertThatExceptionOfType(expected)
			.isThrownBy(() -> RedisServer.local().executable(onlyOnPath(emptyDirectory)).start())
			.withMessageContaining("apt-get install -y redis-server")
			.withCauseInstanceOf(RedisServer.UnavailableException.class);
	}

	@Test
	void aCommandToAKilledServerFailsAtOnceAndTheNextOneAfterItsRestartSucceeds() {
		try (RedisServer server = RedisServer.local().start()) {
			server.kill();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> server.command("PING"));
			server.restart();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void withoutRedisServerOnThePathTheShippedRedis62Runs(@TempDir Path emptyDirectory) {
		try (RedisServer server = RedisServer.start(null, new RedisExecutable(null, emptyDirectory.toString(), true),
				false)) {
			assertThat(server.isLocalProcess()).isTrue();
			assertThat(server.version()).startsWith("6.2.");
			assertThat(server.command("INFO", "server")).contains("executable:" + System.getProperty("java.io.tmpdir"));
		}
	}

	@Test
	void theShippedServerIsCopiedIntoADirectoryOnlyItsUserCanReadOrWrite(@TempDir Path temporary) throws IOException {
		Path shipped = RedisExecutable.shipped(temporary);
		assertThat(shipped).isNotNull();
		Path directory = shipped.getParent();
		assertThat(directory).isEqualTo(temporary.resolve("redq-" + System.getProperty("user.name")));
		assertThat(Files.getPosixFilePermissions(directory)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
		assertThat(Files.getOwner(directory).getName()).isEqualTo(System.getProperty("user.name"));
	}

	@Test
	void aCopyOfTheSameSizeButAnotherContentIsReplacedNotRun(@TempDir Path temporary) throws IOException {
		Path shipped = RedisExecutable.shipped(temporary);
		byte[] content = Files.readAllBytes(shipped);
		byte[] forged = content.clone();
		forged[forged.length / 2] ^= 1;
		Files.write(shipped, forged);
		assertThat(RedisExecutable.shipped(temporary)).isEqualTo(shipped);
		assertThat(Files.readAllBytes(shipped)).isEqualTo(content);
	}

	@Test
	void aDirectoryThatIsALinkOrAnotherUsersIsRefused(@TempDir Path temporary) throws IOException {
		Path elsewhere = Files.createDirectory(temporary.resolve("elsewhere"));
		Files.createSymbolicLink(temporary.resolve("redq-" + System.getProperty("user.name")), elsewhere);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> RedisExecutable.shipped(temporary))
			.withMessageContaining("must be a directory of user " + System.getProperty("user.name"))
			.withMessageContaining("not a directory");
	}

	@Test
	void anotherUsersDirectoryIsRefused(@TempDir Path temporary) throws IOException {
		Path directory = Files.createDirectory(temporary.resolve("redq-" + System.getProperty("user.name")));
		UserPrincipal nobody;
		try {
			nobody = directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
			Files.setOwner(directory, nobody);
		}
		catch (IOException ex) {
			throw new TestAbortedException("Cannot give a directory to user nobody here: " + ex);
		}
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> RedisExecutable.shipped(temporary))
			.withMessageContaining("but it is owned by nobody: remove it");
	}

	@Test
	void aDirectoryThatOthersCouldWriteIsMadeOwnerOnly(@TempDir Path temporary) throws IOException {
		Path directory = Files.createDirectory(temporary.resolve("redq-" + System.getProperty("user.name")));
		Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
		assertThat(RedisExecutable.shipped(temporary)).startsWith(directory);
		assertThat(Files.getPosixFilePermissions(directory)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
	}

	@Test
	void theEnvironmentVariableChoosesTheShippedServerOverThePath() {
		Path shipped = new RedisExecutable(RedisExecutable.EMBEDDED, System.getenv("PATH"), false).find();
		assertThat(shipped).isNotNull();
		assertThat(RedisExecutable.isShipped(shipped)).isTrue();
		try (RedisServer server = RedisServer.local()
			.executable(new RedisExecutable(RedisExecutable.EMBEDDED, System.getenv("PATH"), true))
			.start()) {
			assertThat(server.version()).startsWith("6.2.");
		}
	}

	@Test
	void theEnvironmentVariableNamesAnExecutable(@TempDir Path directory) throws IOException {
		Path shipped = new RedisExecutable(RedisExecutable.EMBEDDED, null, false).find();
		assertThat(new RedisExecutable(shipped.toString(), null, false).find()).isEqualTo(shipped);
		Path notExecutable = Files.writeString(directory.resolve("redis-server"), "");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> new RedisExecutable(notExecutable.toString(), System.getenv("PATH"), true).find())
			.withMessageContaining("REDQ_REDIS_SERVER must name a redis-server executable or be embedded")
			.withMessageContaining(notExecutable.toString());
	}

	private static RedisExecutable onlyOnPath(Path directory) {
		return new RedisExecutable(null, directory.toString(), false);
	}

	private static String findRedisServer() {
		try (RedisServer server = RedisServer.start(null, RedisExecutable.fromEnvironment(), false)) {
			return server.command("INFO", "server")
				.lines()
				.filter((line) -> line.startsWith("executable:"))
				.map((line) -> line.substring("executable:".length()))
				.findFirst()
				.orElseThrow();
		}
	}

	private static boolean isListening(int port) {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
