package io.redq.queue.test;

import java.io.IOException;
import java.net.Socket;

import org.jspecify.annotations.Nullable;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Tests for {@link RedisServerExtension} and {@link WithRedis}.
 *
 * @author Redq team
 */
@WithRedis
class RedisServerExtensionTests {

	/** Why a test that needs a process of its own is skipped. */
	static final String USES_REDIS_URL = "REDQ_TEST_REDIS_URL is set: the server of @WithRedis is not a process of this JVM";

	private static RedisServer classServer;

	private final RedisServer constructorServer;

	private @Nullable RedisServer otherExtensionServer;

	/** An extension that builds on the server, as queue-core's test fixtures do. */
	@RegisterExtension
	final BeforeEachCallback otherExtension = (context) -> {
		this.otherExtensionServer = RedisServerExtension.serverOf(context);
	};

	RedisServerExtensionTests(RedisServer server) {
		this.constructorServer = server;
	}

	@BeforeAll
	static void rememberServer(RedisServer server) {
		classServer = server;
	}

	@AfterEach
	void afterEachGetsTheSameServer(RedisServer server) {
		assertThat(server).isSameAs(classServer);
	}

	@Test
	void answersPing(RedisServer server) {
		assertThat(server.command("PING")).isEqualTo("PONG");
	}

	@Test
	void isALocalProcessBoundToLoopbackOnAFreePort(RedisServer server) {
		assumeTrue(server.isLocalProcess(), USES_REDIS_URL);
		assertThat(server.host()).isEqualTo("127.0.0.1");
		assertThat(server.port()).isNotEqualTo(6379);
		assertThat(server.url()).isEqualTo("redis://127.0.0.1:" + server.port());
		assertThat(server.command("CONFIG", "GET", "bind")).isEqualTo("bind\n127.0.0.1");
		assertThat(server.command("CONFIG", "GET", "save")).isEqualTo("save\n");
	}

	@Test
	void setThenGet(RedisServer server) {
		assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
		assertThat(server.command("GET", "k")).isEqualTo("v");
		assertThat(server.command("GET", "missing")).isNull();
		assertThat(server.command("INCR", "n")).isEqualTo("1");
	}

	@Test
	void flushAllEmptiesEveryDatabase(RedisServer server) {
		server.command("SET", "k", "v");
		server.command("SET", "elsewhere", "v");
		server.command("MOVE", "elsewhere", "1");
		assertThat(server.command("INFO", "keyspace")).contains("db0:keys=1", "db1:keys=1");
		server.flushAll();
		assertThat(server.command("INFO", "keyspace")).doesNotContain("keys=");
		assertThat(server.command("GET", "k")).isNull();
	}

	@Test
	void nestedArraysAreFlattenedAndNilElementsAreEmpty(RedisServer server) {
		assertThat(server.command("EVAL", "return {1, {'a', false}, 'b'}", "0")).isEqualTo("1\na\n\nb");
		assertThat(server.command("EVAL", "return {}", "0")).isEmpty();
	}

	@Test
	void errorRepliesThrow(RedisServer server) {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> server.command("NOSUCHCOMMAND"))
			.withMessageContaining("ERR");
	}

	@Test
	void oneServerPerClass(RedisServer server) {
		assertThat(server).isSameAs(classServer).isSameAs(this.constructorServer);
	}

	@Test
	void eachTestStartsOnAnEmptyServer() {
		SummaryGeneratingListener listener = run(LeavesAKeyBehind.class);
		assertThat(listener.getSummary().getFailures()).isEmpty();
		assertThat(listener.getSummary().getTestsSucceededCount()).isEqualTo(2);
	}

	@Test
	void otherExtensionsGetTheServerOfTheClass() {
		assertThat(this.otherExtensionServer).isSameAs(classServer);
	}

	@Test
	void otherExtensionsWithoutWithRedisAreToldToAddIt() {
		SummaryGeneratingListener listener = run(WithoutWithRedis.class);
		assertThat(listener.getSummary().getFailures()).singleElement()
			.satisfies((failure) -> assertThat(failure.getException()).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("annotate the test class with @WithRedis"));
	}

	@Test
	void springProperties(RedisServer server) {
		assertThat(server.springProperties()).containsExactly("spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port());
		assertThat(server.commandLineArgs()).containsExactly("--spring.data.redis.host=" + server.host(),
				"--spring.data.redis.port=" + server.port());
	}

	@Test
	void serverIsStoppedWhenTheClassFinishes() {
		assumeTrue(classServer.isLocalProcess(), USES_REDIS_URL);
		SummaryGeneratingListener listener = run(Fixture.class);
		assertThat(listener.getSummary().getTestsSucceededCount()).isEqualTo(1);
		assertThat(Fixture.server).isNotNull().isNotSameAs(classServer);
		assertThat(isListening(Fixture.server.port())).isFalse();
	}

	static boolean isListening(int port) {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Nested
	class NestedTests {

		@Test
		void getsTheEnclosingServer(RedisServer server) {
			assertThat(server).isSameAs(classServer);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}

	}

	@Test
	void missingRedisSkipsOutsideCi() {
		SummaryGeneratingListener listener = run(SkippedOutsideCi.class);
		assertThat(listener.getSummary().getContainersAbortedCount()).isEqualTo(1);
		assertThat(listener.getSummary().getTotalFailureCount()).isZero();
		assertThat(listener.getSummary().getTestsSucceededCount()).isZero();
	}

	@Test
	void missingRedisFailsUnderCiSayingWhatToInstall() {
		SummaryGeneratingListener listener = run(FailsUnderCi.class);
		assertThat(listener.getSummary().getContainersFailedCount()).isEqualTo(1);
		assertThat(listener.getSummary().getFailures()).singleElement()
			.satisfies((failure) -> assertThat(failure.getException()).hasMessageContaining("CI=true")
				.hasMessageContaining("apt-get install -y redis-server"));
		assertThat(listener.getSummary().getTestsSucceededCount()).isZero();
	}

	private static SummaryGeneratingListener run(Class<?> fixture) {
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherFactory.create()
			.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(fixture)).build(), listener);
		return listener;
	}

	/**
	 * Looks for Redis where there is none: no REDQ_TEST_REDIS_URL, no redis-server, no
	 * Docker.
	 */
	static RedisServer startWithoutRedis() {
		return RedisServer.start(null, new RedisExecutable(null, "/nonexistent", false), false);
	}

	/** Run only through the launcher above. */
	static class SkippedOutsideCi {

		@RegisterExtension
		static final RedisServerExtension extension = new RedisServerExtension(
				RedisServerExtensionTests::startWithoutRedis, false);

		@Test
		void uses(RedisServer server) {
		}

	}

	/** Run only through the launcher above. */
	static class FailsUnderCi {

		@RegisterExtension
		static final RedisServerExtension extension = new RedisServerExtension(
				RedisServerExtensionTests::startWithoutRedis, true);

		@Test
		void uses(RedisServer server) {
		}

	}

	/** Run only through the launcher above. */
	@WithRedis
	@TestMethodOrder(MethodOrderer.MethodName.class)
	static class LeavesAKeyBehind {

		@Test
		void first(RedisServer server) {
			server.command("SET", "left", "behind");
		}

		@Test
		void second(RedisServer server) {
			assertThat(server.command("GET", "left")).isNull();
		}

	}

	/** Run only through the launcher above. */
	static class WithoutWithRedis {

		@RegisterExtension
		static final BeforeEachCallback extension = RedisServerExtension::serverOf;

		@Test
		void uses() {
		}

	}

	/** Run only through the launcher above (Surefire skips nested classes). */
	@WithRedis
	static class Fixture {

		static RedisServer server;

		@Test
		void uses(RedisServer server) {
			Fixture.server = server;
			assertThat(isListening(server.port())).isTrue();
		}

	}

}
