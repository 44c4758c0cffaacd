package io.redq.queue.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} executable that a local {@link RedisServer} runs.
 * <p>
 * In this order: the one the environment variable {@value #ENVIRONMENT_VARIABLE} names (a
 * path, or {@value #EMBEDDED} for the shipped one), else {@code redis-server} on the
 * {@code PATH}, else the Redis 6.2 that the {@code com.github.codemonstur:embedded-redis}
 * artifact ships for Linux and macOS (amd64 and arm64), copied out of the jar once into
 * the temporary directory. The shipped server is the oldest Redis that Redq supports, so
 * that a build without a system {@code redis-server} still tests against a real one.
 *
 * @param configured the value of {@value #ENVIRONMENT_VARIABLE}, if any
 * @param path the {@code PATH} to search
 * @param embedded whether the shipped server may be used
 * @author Redq team
 * @since 0.1.0
 */
record RedisExecutable(@Nullable String configured, @Nullable String path, boolean embedded) {

	/** Names the {@code redis-server} to run: a path, or {@value #EMBEDDED}. */
	static final String ENVIRONMENT_VARIABLE = "REDQ_REDIS_SERVER";

	/** Value of {@value #ENVIRONMENT_VARIABLE} that selects the shipped server. */
	static final String EMBEDDED = "embedded";

	/** Where the shipped server comes from, for log and error messages. */
	static final String EMBEDDED_ARTIFACT = "com.github.codemonstur:embedded-redis";

	/**
	 * The executable the environment of this JVM asks for.
	 * @return the lookup of {@value #ENVIRONMENT_VARIABLE}, {@code PATH} and the shipped
	 * server
	 */
	static RedisExecutable fromEnvironment() {
		return new RedisExecutable(System.getenv(ENVIRONMENT_VARIABLE), System.getenv("PATH"), true);
	}

	/**
	 * Find the executable.
	 * @return the executable, or {@code null} when there is none
	 * @throws IllegalStateException when {@value #ENVIRONMENT_VARIABLE} names a file that
	 * is not an executable, or asks for the shipped server on a platform it lacks
	 */
	@Nullable Path find() {
		if (this.configured != null && !this.configured.isBlank()) {
			String configured = this.configured.trim();
			if (EMBEDDED.equals(configured)) {
				Path shipped = shipped();
				if (shipped == null) {
					throw new IllegalStateException(ENVIRONMENT_VARIABLE + "=" + EMBEDDED + ", but " + EMBEDDED_ARTIFACT
							+ " ships no redis-server for " + platform() + " or is not on the classpath");
				}
				return shipped;
			}
			Path named = Path.of(configured);
			if (!Files.isRegularFile(named) || !Files.isExecutable(named)) {
				throw new IllegalStateException(ENVIRONMENT_VARIABLE + " must name a redis-server executable or be "
						+ EMBEDDED + ", but was: " + configured);
			}
			return named;
		}
		Path onPath = findOnPath(this.path);
		if (onPath != null) {
			return onPath;
		}
		return this.embedded ? shipped() : null;
	}

	/**
	 * Whether an executable is the shipped one.
	 * @param executable an executable that {@link #find()} returned
	 * @return whether it was copied out of {@value #EMBEDDED_ARTIFACT}
	 */
	static boolean isShipped(Path executable) {
		return executable.getFileName().toString().startsWith("redq-embedded-");
	}

	private static @Nullable Path findOnPath(@Nullable String path) {
		if (path == null) {
			return null;
		}
		for (String entry : path.split(File.pathSeparator)) {
			if (!entry.isEmpty()) {
				Path candidate = Path.of(entry, "redis-server");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	private static @Nullable Path shipped() {
		String resource = shippedResource();
		if (resource == null) {
			return null;
		}
		// The resource names carry the version the artifact claims; the binaries of
		// 1.4.3 report 6.2.11 (linux-amd64) when asked.
		try (InputStream in = RedisExecutable.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				return null;
			}
			return copyOut(resource, in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot copy " + resource + " out of " + EMBEDDED_ARTIFACT, ex);
		}
	}

	/**
	 * Copy the binary into the temporary directory once per content: a concurrent build
	 * may be copying the same file, so each copy goes to a file of its own and is renamed
	 * into place atomically.
	 */
	private static Path copyOut(String resource, InputStream in) throws IOException {
		byte[] content = in.readAllBytes();
		Path target = Path.of(System.getProperty("java.io.tmpdir"),
				"redq-embedded-" + resource + "-" + Integer.toHexString(Arrays.hashCode(content)));
		if (Files.isExecutable(target) && Files.size(target) == content.length) {
			return target;
		}
		Path copy = Files.createTempFile(target.getParent(), "redq-embedded-", ".tmp");
		try {
			Files.write(copy, content);
			if (!copy.toFile().setExecutable(true)) {
				throw new IOException("Cannot make " + copy + " executable");
			}
			Files.move(copy, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		finally {
			Files.deleteIfExists(copy);
		}
		return target;
	}

	private static @Nullable String shippedResource() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
		boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
		if (os.contains("linux")) {
			return amd64 ? "redis-server-6.2.6-v5-linux-amd64" : arm64 ? "redis-server-6.2.7-linux-arm64" : null;
		}
		if (os.contains("mac")) {
			return amd64 ? "redis-server-6.2.6-v5-darwin-amd64" : arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null;
		}
		return null;
	}

	private static String platform() {
		return System.getProperty("os.name") + "/" + System.getProperty("os.arch");
	}

}
